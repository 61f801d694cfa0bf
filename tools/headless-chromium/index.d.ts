import type { BrowserContext } from 'playwright-core';

/** A headless Chromium context in a throwaway profile. */
export interface HeadlessChromium {
  readonly context: BrowserContext;
  /** Closes the browser and removes its profile directory. */
  close(): Promise<void>;
}

/** Launches Debian's Chromium (or `CHROMIUM_PATH`) headless in a fresh profile named after `name`. */
export function launchHeadlessChromium(name: string): Promise<HeadlessChromium>;

export type { BrowserContext, Page } from 'playwright-core';
