import { createGateway, defineAction } from '@svc/gateway-kit';
import * as v from 'valibot';
import { expect, it } from 'vitest';
import { McpConfigError } from '../mcp-config-error.ts';
import { actionTool, actionTools } from './action-tools.ts';

const gateway = createGateway({
  gateway: { id: 'x', name: 'x' },
  actions: [defineAction({ id: 'echo', input: v.object({}), run: () => ({}) })],
  auth: { tokens: ['t0ken'] },
});

it('actionTools refuses a gateway where its manifest goes, saying what to pass', () => {
  const tools = actionTools as (manifest: unknown) => unknown;
  expect(() => tools(gateway)).toThrow(
    new McpConfigError(
      'actionTools: manifest is an object: expected a manifest, e.g. actionTools(gateway.manifest).',
    ),
  );
  expect(() => tools(undefined)).toThrow(McpConfigError);
  expect(actionTools(gateway.manifest).map((tool) => tool.name)).toEqual(['echo']);
});

it('actionTool refuses what is no action of a manifest', () => {
  const tool = actionTool as (action: unknown) => unknown;
  expect(() => tool(undefined)).toThrow(
    new McpConfigError(
      'actionTool: action is undefined: expected an action of a manifest, e.g. actionTool(gateway.manifest.actions[0]).',
    ),
  );
  expect(() => tool(gateway.manifest)).toThrow(McpConfigError);
});
