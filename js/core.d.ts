// Types of js/core.mjs (hand-written; the op surface's types are generated into ops.d.ts).
export type DType = 'bool' | 'uint8' | 'int8' | 'int16' | 'int32' | 'int64' | 'float16' | 'bfloat16' | 'float32' | 'float64'
  | `torch.${string}`;
/** A Python scalar: an integral number is an int, other numbers floats; f(2) passes the float 2.0. */
export type Scalar = number | boolean | bigint | FloatScalar;
export type TypedArray = Float32Array | Float64Array | Int32Array | BigInt64Array | Int16Array | Int8Array | Uint8Array;
type Nested = number | boolean | bigint | FloatScalar | Nested[];

export declare const info: { simd: boolean; engine: string; wasmBytes: number };
export declare function init(opts?: { wasm?: string | URL | Uint8Array | ArrayBuffer | WebAssembly.Module; simd?: boolean }): Promise<typeof info>;
export declare function simdSupported(): boolean;

export declare class FloatScalar { constructor(v: number); value: number; }
export declare function f(v: number): FloatScalar;

export declare class RuntimeError extends Error { kind: string; }
export declare class IndexError extends Error { kind: 'IndexError'; }
export declare class ValueError extends Error { kind: 'ValueError'; }
export declare class NotImplementedError extends RuntimeError {}
export declare class MemoryError extends Error { kind: 'MemoryError'; }
export declare class OverflowError extends RuntimeError {}
export declare class ZeroDivisionError extends Error { kind: 'ZeroDivisionError'; }
export declare class LinAlgError extends RuntimeError {}
export declare function setWarningHandler(fn: (message: string) => void): (message: string) => void;

export declare class Tensor {
  private constructor();
  static from(data: TypedArray | Nested, shape?: number[], opts?: { dtype?: DType; requiresGrad?: boolean }): Tensor;
  readonly handle: number;
  readonly isDisposed: boolean;
  readonly kept: boolean;
  dispose(): void;
  keep(): this;
  readonly shape: number[];
  readonly dtype: DType;
  readonly ndim: number;
  dim(): number;
  size(): number[];
  size(dim: number): number;
  strides(): number[];
  isContiguous(): boolean;
  toTypedArray(): TypedArray;
  toArray(): any;
  tolist(): any;
  item(): number | boolean | bigint;
  toString(): string;
  numel(): number;
  stride(): number[];
  stride(dim: number): number;
  elementSize(): number;
  isFloatingPoint(): boolean;
  float(): Tensor; double(): Tensor; half(): Tensor; bfloat16(): Tensor; long(): Tensor; int(): Tensor;
  short(): Tensor; char(): Tensor; byte(): Tensor; bool(): Tensor;
  /** x[a, b]: items are integers, slice(...), null (None), '...', booleans, tensors or arrays (index lists). */
  get(...items: IndexItem[]): Tensor;
  /** x[a, b] = value */
  set(value: Tensor | Scalar, ...items: IndexItem[]): this;
  requiresGrad: boolean;
  requiresGrad_(on?: boolean): this;
  readonly isLeaf: boolean;
  grad: Tensor | null;
  readonly gradFn: string | null;
  readonly gradNode: Node | null;
  backward(gradient?: Tensor | null, opts?: { retainGraph?: boolean; createGraph?: boolean; inputs?: Tensor[] }): void;
  readonly data: Tensor;
  setData(src: Tensor): this;
  readonly version: number;
  bumpVersion(): void;
  storageOffset(): number;
  /** x._is_view() */
  readonly isView: boolean;
  /** x._base: the root tensor this one is a view of, or null */
  readonly viewBase: Tensor | null;
  dataPtr(): number;
  retainGrad(): this;
  readonly retainsGrad: boolean;
  /** fn(grad) may return a replacement gradient (same dtype and shape) or nothing; returns the id for removeHook. */
  registerHook(fn: (grad: Tensor) => Tensor | null | void, name?: string): number;
  removeHook(id: number): void;
}
export interface BackwardOptions { retainGraph?: boolean; createGraph?: boolean; inputs?: Tensor[]; grad?: boolean; allowUnused?: boolean }
/** torch.autograd.backward(roots, grads, ...); with opts.grad and opts.inputs, torch.autograd.grad: the gradients. */
export declare function runBackward(roots: Tensor[], grads?: (Tensor | null)[] | null, opts?: BackwardOptions): (Tensor | null)[] | undefined;
export declare function grad(outputs: Tensor[], inputs: Tensor[], gradOutputs?: (Tensor | null)[] | null,
  opts?: { retainGraph?: boolean; createGraph?: boolean; allowUnused?: boolean }): (Tensor | null)[];
export declare function registerHook(t: Tensor, fn: (grad: Tensor) => Tensor | null | void, name?: string, onFree?: (() => void) | null): number;
export declare function setPostAccumulateGradCallback(fn: ((leaf: Tensor) => void) | null): void;
export declare function setPostAccumulateGradFlag(t: Tensor, on: boolean): void;
export declare function liveHooks(): number;
/** A hook's result that fails the backward without throwing (its caller re-raises its own error). */
export declare const hookFailed: object;
export declare class Node {
  readonly handle: number;
  readonly name: string;
  readonly isCpp: boolean;
  readonly nextFunctions: [Node | null, number][];
  readonly variable: Tensor | null;
  dispose(): void;
}
export declare function tensor(data: TypedArray | Nested, opts?: { dtype?: DType; requiresGrad?: boolean }): Tensor;

export declare function scope<T>(fn: () => T): T;
export declare function keep<T>(v: T): T;
export declare function dispose(v: Tensor | Tensor[] | Record<string, Tensor>): void;
export declare function leakCount(): number;
export declare function onLeak(fn: ((handle: number) => void) | null): void;
export declare function liveTensors(): number;

export declare function isGradEnabled(): boolean;
export declare function setInferenceMode(on: boolean): boolean;
export declare function isInferenceModeEnabled(): boolean;
export declare function setGradEnabled(on: boolean): boolean;
export declare function noGrad<T>(fn: () => T): T;
export declare function enableGrad<T>(fn: () => T): T;

export declare class Generator {
  constructor();
  manualSeed(seed: number | bigint): this;
  initialSeed(): bigint;
  seed(): bigint;
  getState(): Tensor;
  setState(state: Tensor): this;
  cloneState(): Generator;
  dispose(): void;
  static readonly STATE_BYTES: number;
}
export declare function defaultGenerator(): Generator;
export declare function manualSeed(seed: number | bigint): Generator;
export declare function initialSeed(): bigint;
export declare function setNumThreads(n: number): void;
export declare function getNumThreads(): number;
export declare function getDefaultDtype(): DType;
export declare function setDefaultDtype(d: DType): void;
export declare function dtypeIndex(d: DType | null): number;
export declare function dtypeName(i: number): DType;
export declare const float32: 'float32', float64: 'float64', float16: 'float16', bfloat16: 'bfloat16', int64: 'int64',
  int32: 'int32', int16: 'int16', int8: 'int8', uint8: 'uint8', bool: 'bool';
export declare function callOp(name: string, overloads: unknown[], args: unknown[], self?: Tensor, variant?: string): any;
export declare class Slice { constructor(start: number | null, stop: number | null, step: number | null); }
/** Python's slice: slice(stop) or slice(start, stop, step?); null is None. */
export declare function slice(startOrStop: number | null, stop?: number | null, step?: number | null): Slice;
export declare class IndexTuple { private constructor(); }
/** tuple(i) is the one-element tuple index x[i,]. */
export declare function tuple(...items: IndexItem[]): IndexTuple;
export declare const ellipsis: '...';
export type IndexItem = number | bigint | boolean | null | '...' | Slice | Tensor | IndexTuple | (number | boolean)[] | any[];
