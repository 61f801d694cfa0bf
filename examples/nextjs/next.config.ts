import type { NextConfig } from 'next';

const config: NextConfig = {
  // The demo catalogue is a workspace package published as TypeScript source.
  transpilePackages: ['@svc/example-demo-actions'],
};

export default config;
