// The MCP sessions pages, one chunk (LazySessions.tsx): the list of
// sessions and a session's page, with the records it produced.

export { SessionsPage, SessionPage } from './Sessions';
