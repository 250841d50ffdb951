// The API's types, by their names in server/openapi.json: taken from the
// generated api.gen.ts (npm run gen --prefix web/apigen), never restated.

import type { components, operations } from './api.gen.js';

type Schemas = components['schemas'];

/** A report of one error (POST /v1/errors' body). */
export type Report = Schemas['Report'];
/**
 * A report as report() takes it: timestamp (defaults to now) and status
 * (defaults to "error") may be left out, as the Go client fills them in.
 */
export type ReportInput = Omit<Report, 'timestamp' | 'status'> & Partial<Pick<Report, 'timestamp' | 'status'>>;
/** The service's answer to a report: its diagnosis, recovery and message. */
export type Feedback = Schemas['Feedback'];
/** An error record (GET /v1/errors/{error_id}). */
export type ErrorRecord = Schemas['Record'];
/** A page of record summaries (GET /v1/errors). */
export type Page = Schemas['Page'];
/** One record of a Page. */
export type RecordSummary = Schemas['RecordSummary'];
/** The filters, sort and paging GET /v1/errors takes. */
export type ErrorQuery = NonNullable<operations['listErrors']['parameters']['query']>;
/** An RFC 9457 problem document with Triage's members. */
export type ProblemDocument = Schemas['Problem'];
/** A code of Triage's taxonomy (see docs/taxonomy.md). */
export type Code = Schemas['Code'];
