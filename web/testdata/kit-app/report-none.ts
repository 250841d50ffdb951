// What src/report.ts is while the kit's bundle cost is measured: nothing is
// reported, so that the bundle holds the kit and not the client.
export async function reportFailure(_message: string, _code: string): Promise<string | undefined> {
  return undefined;
}
