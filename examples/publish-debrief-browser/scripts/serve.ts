// Local use: `pnpm start` builds the page and serves it with a workspace emulator next to it.
// PORT (default 5180) and EMULATOR_PORT (default: a free port) choose the ports.
import { startDevServer } from './dev-server.ts';

const server = await startDevServer({
  port: Number(process.env.PORT ?? 5180),
  emulatorPort: Number(process.env.EMULATOR_PORT ?? 0),
});
console.log(`page:      ${server.url}`);
console.log(`workspace: ${server.workspace.url} (local emulator; state is lost on exit)`);

const stop = () => {
  server.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
