// Starts one browserless instance (the npm package @browserless.io/browserless)
// for the pool tests, with Debian's Chromium standing in for Playwright's:
// scripts/ensure-browserless installs the package and points
// PLAYWRIGHT_BROWSERS_PATH's chromium at /usr/bin/chromium (or CHROME_PATH).
// Configuration is browserless' own environment: HOST, PORT, TOKEN,
// CONCURRENT, QUEUED, TIMEOUT. Only Chromium is there: the Firefox, WebKit,
// Chrome and Edge routes are disabled (browserless refuses to start with a
// route whose browser it cannot find). The process ends on SIGTERM, SIGINT, or when its
// parent closes stdin.
import {
  Browserless,
  BrowserlessChromeRoutes,
  BrowserlessEdgeRoutes,
  BrowserlessFirefoxRoutes,
  BrowserlessWebKitRoutes,
} from '@browserless.io/browserless';

const browserless = new Browserless();
browserless.disableRoutes(
  ...Object.values(BrowserlessChromeRoutes),
  ...Object.values(BrowserlessEdgeRoutes),
  ...Object.values(BrowserlessFirefoxRoutes),
  ...Object.values(BrowserlessWebKitRoutes),
);
await browserless.start();
console.log(`browserless listening on ${process.env.HOST}:${process.env.PORT}`);

const stop = async () => {
  await browserless.stop().catch(() => {});
  process.exit(0);
};
process.once('SIGTERM', stop).once('SIGINT', stop);
process.stdin.on('end', stop).resume();
