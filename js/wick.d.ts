// Types of wick's JS API: the hand-written core and the generated op surface.
export * from './core';
export * from './ops';
