// @triage/kit: AG-UI errors for React apps. See ../README.md.
//
// The toasts are a separate entry point, @triage/kit/sonner, so that an app
// without sonner installs and builds this one.

export * from './codes.js';
export * from './errors.js';
export * from './notice.js';
export * from './useAGUIErrorHandler.js';
export * from './alert.js';
