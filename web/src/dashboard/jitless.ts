// Zod 4 (which @ag-ui/core's schemas are built with) compiles its object
// parsers with `new Function` when it may, and finds out whether it may by
// trying: under the dashboard's Content-Security-Policy, which allows no
// eval, that probe fails, and the browser reports the attempt (a console
// error, a securitypolicyviolation event) even though Zod catches it.
// jitless tells Zod not to try. This module is imported first (main.tsx),
// before @ag-ui/core builds its schemas.

import { config } from 'zod';

config({ jitless: true });
