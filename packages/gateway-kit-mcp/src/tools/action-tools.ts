import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ActionDescriptor, Manifest } from '@svc/gateway-kit/contract';
import { refuse } from '../options.ts';

/**
 * The MCP tool describing one action of the manifest: same name (the action id), title,
 * description and input JSON Schema; annotations from `sideEffectLevel` and `idempotent`;
 * `_meta["svc/action"]` keeps what MCP has no field for (execution mode, approval, side effects).
 *
 * @example
 * const tool = actionTool(gateway.manifest.actions[0]!);
 * tool.annotations?.readOnlyHint; // true for a `read` action
 */
export function actionTool(action: ActionDescriptor): Tool {
  // Also for JavaScript callers: a TypeError deep inside would not say what to pass.
  if (typeof action !== 'object' || action === null || typeof action.id !== 'string')
    refuse(
      'actionTool',
      'action',
      action,
      'expected an action of a manifest, e.g. actionTool(gateway.manifest.actions[0]).',
    );
  return {
    name: action.id,
    title: action.title,
    description: action.description,
    inputSchema: action.inputSchema as Tool['inputSchema'],
    // Work that outlives a request (a job, an operator's decision) may run as an MCP task.
    execution: {
      taskSupport:
        action.executionMode === 'async' || action.requiresApproval ? 'optional' : 'forbidden',
    },
    annotations: {
      title: action.title,
      readOnlyHint: action.sideEffectLevel === 'read',
      destructiveHint: action.sideEffectLevel === 'destructive',
      idempotentHint: action.idempotent,
      openWorldHint: false,
    },
    _meta: {
      'svc/action': {
        executionMode: action.executionMode,
        requiresApproval: action.requiresApproval,
        sideEffectLevel: action.sideEffectLevel,
      },
    },
  };
}

/**
 * Every action of the manifest as an MCP tool, in manifest order.
 *
 * @example
 * const tools = actionTools(gateway.manifest); // what tools/list answers
 */
export function actionTools(manifest: Manifest): Tool[] {
  // `actionTools(gateway)` is the likely slip: say to pass its manifest.
  if (typeof manifest !== 'object' || manifest === null || !Array.isArray(manifest.actions))
    refuse(
      'actionTools',
      'manifest',
      manifest,
      'expected a manifest, e.g. actionTools(gateway.manifest).',
    );
  return manifest.actions.map(actionTool);
}
