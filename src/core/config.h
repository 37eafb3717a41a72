/* config.h — the one platform config: what the target provides (threads, thread-local storage), decided once.
 * Every file that needs to know includes this (core.h does) instead of testing the target itself.
 *   WK_NO_THREADS  defined (1) where there are no threads: wasm32-wasi built without -pthread (_REENTRANT).
 *                  Then there is no pthread.h, the thread pool runs jobs inline and locks are no-ops.
 *   WK_TLS         the storage class of per-thread state: _Thread_local, or nothing where there are no threads
 *                  (one thread, so a plain static is per-thread). */
#ifndef WK_CONFIG_H
#define WK_CONFIG_H

#if defined(__wasi__) && !defined(_REENTRANT)
#define WK_NO_THREADS 1
#endif

#ifdef WK_NO_THREADS
#define WK_TLS
#else
#define WK_TLS _Thread_local
#endif

#endif
