// The Triage web kit: AG-UI errors for React apps. See web/README.md.

export * from './codes';
export * from './errors';
export * from './notice';
export * from './useAGUIErrorHandler';
// The toaster the hook's toasts appear in: render it once in the app. It is
// sonner's, re-exported so that the app and the kit share one copy.
export { Toaster } from 'sonner';
