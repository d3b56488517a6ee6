// shared-browser.mjs: one Chromium for every browser test file of a run. tests/run-all.sh starts
// it, reads the endpoint it writes to the file named by its argument, and passes it on as
// QKV_BROWSER_WS: harness.js's openBrowser() then connects to this browser instead of launching
// one per file (a launch costs about two seconds of CPU, and node --test runs each file in a
// process of its own). Each file still gets its own contexts, its own server and its own pages.
// Stops on SIGTERM or SIGINT.
//   node tests/browser/shared-browser.mjs ENDPOINT_FILE
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { CHROMIUM, argsWithProxy, startRefuser } from '../../tools/browser.mjs';

// (the port its requests off the machine are sent to, and refused: tools/browser.mjs, argsWithProxy)
const refuser = await startRefuser();
const server = await chromium.launchServer({ executablePath: CHROMIUM, args: argsWithProxy(refuser.port), headless: true });
fs.writeFileSync(process.argv[2], server.wsEndpoint());
const stop = async () => { await server.close(); await refuser.close(); process.exit(0); };
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
