// Type declarations of skewtest's driver kit for Node.js (driverkit.js). See README.md.

/// <reference types="node" />

/** The driver protocol version this kit speaks. */
export const PROTOCOL: 1;

/** Roles a driver plays. */
export const HOST: 'host';
export const CLIENT: 'client';

/** Result error codes: the code of a result that is not ok. */
export const CODE_UNSUPPORTED_ACTION: 'unsupported-action';
export const CODE_BAD_ARGS: 'bad-args';
export const CODE_FAILED: 'failed';
export type Code = typeof CODE_UNSUPPORTED_ACTION | typeof CODE_BAD_ARGS | typeof CODE_FAILED;

/** The types a described parameter may have. */
export const PARAM_TYPES: readonly ParamType[];
export type ParamType = 'text' | 'int' | 'bool' | 'enum' | 'id' | 'json';

/** What skewtest tells a driver through its environment (the SKEWTEST_* variables). */
export interface Env {
  /** SKEWTEST_DRIVER_PROTOCOL; 0 when unset or not a number. */
  protocol: number;
  /** 'host' or 'client' (SKEWTEST_ROLE). */
  role: string;
  /** The client kind, e.g. 'web'; '' for a host (SKEWTEST_KIND). */
  kind: string;
  /** A client's base URL of its host, ws://127.0.0.1:PORT: skewtest's wire tap (SKEWTEST_HOST_URL). */
  hostURL: string;
  /** 'worktree' or the pin's ref, e.g. 'v1.4.173' (SKEWTEST_BUILD_LABEL). */
  buildLabel: string;
  /** The build's commit, or 'worktree' (SKEWTEST_BUILD_REVISION). */
  buildRevision: string;
}

/** What a driver says about itself in its hello line. */
export interface Hello {
  role: string;
  /** The client kind; empty for a host. */
  kind?: string;
  /** The product's name. */
  product: string;
  /** The build's version, e.g. 'v1.4.173' or 'worktree'. */
  version: string;
}

/** One parameter of an action, described in hello for skewtest explore (docs/explore.md). */
export interface Param {
  /** The key a journey writes. */
  name: string;
  type: ParamType;
  /** Bounds of an int's value or a text's length in bytes. */
  min?: number;
  max?: number;
  /** Sizes the product cuts or refuses at. */
  limits?: number[];
  /** An enum's values. */
  values?: string[];
  /** A text travels as text, so it must be valid UTF-8. */
  utf8?: boolean;
  /** The contract's stream the value is sent on. */
  feeds?: string;
  /** Sometimes left out. */
  optional?: boolean;
  /** A value as a journey writes it; needed for a json parameter. */
  example?: string;
}

/** One frame the wire tap recorded, which skewtest asks the receiving build to name. */
export interface Frame {
  /** skewtest's id for the frame, echoed in the answer. */
  id: number;
  dir: 'H>C' | 'C>H';
  /** The connection's path, e.g. '/rpc'. */
  path: string;
  /** A binary message; false for text. */
  binary: boolean;
  /** The message's bytes. */
  data: Buffer;
}

/** What a build's decoder made of one frame: its name and fields, or a refusal. */
export interface Decoded {
  /** The frame's name or JSON type. */
  type?: string;
  /** The frame's opcode; 0 (or absent) where the framing has none. */
  opcode?: number;
  /** The decoded payload, as the receiver sees it. */
  fields?: unknown;
  /** The decoder refused or would drop the frame. */
  refused?: boolean;
  /** Why, in the decoder's words. */
  reason?: string;
}

/** What a handler is given beside its arguments. */
export interface ActionContext {
  /** Aborted when the driver stops serving. */
  signal: AbortSignal;
  /** The action's name. */
  action: string;
}

/**
 * Carries out one action with the build's real code. It resolves to the result's data
 * (undefined: none); a thrown error or a rejected promise is a failed result.
 */
export type Handler<A = any> = (args: A, ctx: ActionContext) => unknown | Promise<unknown>;

/** An action's failure with its result code; any other error is answered 'failed'. */
export class DriverError extends Error {
  constructor(code: Code, message: string, options?: {cause?: unknown});
  code: Code;
}

/** A bad-args failure: the action's arguments are wrong. */
export function badArgs(message: string): DriverError;
/** An unsupported-action failure, for an action a handler finds this build cannot do. */
export function unsupported(message: string): DriverError;
/** A failed result whatever err is. */
export function failed(err: unknown): DriverError;

/** What is wrong with a parameter description, or '' (the rules skewtest applies to hello). */
export function checkParam(p: Param): string;

/**
 * The protocol's streams; from the first call on, whatever goes through process.stdout
 * (console.log, console.info, process.stdout.write) goes to stderr instead.
 */
export function stdio(): {input: NodeJS.ReadableStream; output: {write(line: string): unknown}};

/** Reads the SKEWTEST_* variables (of process.env unless given). */
export function fromEnv(env?: NodeJS.ProcessEnv): Env;

/** The transports a host serves on: the scheme of the URL it reports in ready. */
export const TRANSPORTS: readonly ['ws', 'wss', 'tcp', 'tls'];

/**
 * Listens on 127.0.0.1 port 0 and resolves to ws://127.0.0.1:PORT (or the transport's
 * scheme), the port read back.
 */
export function listen(server: {
  listen(port: number, host: string, callback: () => void): unknown;
  address(): {port: number} | string | null;
  once(event: 'error', listener: (err: Error) => void): unknown;
  removeListener(event: 'error', listener: (err: Error) => void): unknown;
}, transport?: 'ws' | 'wss' | 'tcp' | 'tls'): Promise<string>;

/**
 * The throwaway certificate authority's files skewtest hands drivers of a run with a wss or
 * tls host: ca for clients to trust, cert and key for hosts to serve.
 */
export function tlsFiles(env?: NodeJS.ProcessEnv): {ca: Buffer; cert: Buffer; key: Buffer};

/**
 * The global WebSocket class, or an error saying how to get it (Node 20:
 * --experimental-websocket; Node 22 and later: by default).
 */
export function webSocket(): typeof WebSocket;

/** Speaks the driver protocol for one driver process. */
export class Driver {
  constructor(hello: Hello, io?: {input: NodeJS.ReadableStream; output: {write(line: string): unknown}});
  /** Registers an action's handler (before run). */
  handle<A = any>(action: string, handler: Handler<A>): void;
  /** Describes a registered action's parameters in hello (optional, before run). */
  describe(action: string, ...params: Param[]): void;
  /** Registers the decode action: a pure function naming one frame (before run). */
  decode(fn: (frame: Frame) => Decoded): void;
  /** Registers what closes the driver's instance; main runs these newest first before exiting. */
  onClose(fn: () => unknown | Promise<unknown>): void;
  /** Writes an observation (data undefined is {}). */
  observe(what: string, data?: unknown): void;
  /** Writes an "error" observation, {message}. */
  error(message: string): void;
  /**
   * Writes hello, starts (a host resolves to its URL), writes ready, answers actions until
   * stop or the end of stdin, and resolves; an error from start rejects, without ready.
   */
  run(start?: (signal: AbortSignal) => string | undefined | Promise<string | undefined>): Promise<void>;
  /** run, then the onClose functions, then process.exit: 0, or 1 when start failed. */
  main(start?: (signal: AbortSignal) => string | undefined | Promise<string | undefined>): void;
}

/** A driver for one process, on stdio() unless io is given. */
export function newDriver(hello: Hello, io?: {input: NodeJS.ReadableStream; output: {write(line: string): unknown}}): Driver;
