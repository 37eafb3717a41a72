/* device.c — the WebGPU device, step 1 (see device.h): wgpu-native's C API (webgpu.h + wgpu.h of the `wgpu` 0.32.0
 * wheel, wgpu-native 29.0.1.1) loaded with dlopen. Only the few types and functions used are declared below, by
 * hand, checked field by field against that webgpu.h (tests/test_webgpu.py runs them on lavapipe).
 *
 * Device pointers: a wk_storage's data pointer must support pointer arithmetic (core code offsets it), so each GPU
 * buffer gets a range of fake addresses inside one PROT_NONE reservation: host code that dereferences a device
 * pointer faults at once instead of reading garbage. A pointer maps back to (buffer, offset) by binary search in
 * the block table (sorted: ranges are handed out in increasing order and never reused by another buffer).
 * Pool: sizes round up to a power of two (>= 256 bytes); a freed block keeps its buffer and range for the next
 * alloc of its bucket, up to POOL_MAX idle bytes in all: to make room the largest idle buffers are destroyed.
 * Transfers: WebGPU copies need 4-byte offsets and sizes, so an unaligned head or tail is read, patched and
 * written back (reads go through one reusable MapRead staging buffer). Every call waits for its work (step 1
 * has no kernels to overlap with); wgpu errors and device loss come back as wick RuntimeErrors. */
#include "webgpu/device.h"
#include "webgpu/gpu.h"

#include "core/core.h"
#include "ops_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__wasi__) || defined(__EMSCRIPTEN__)
/* The wasm builds reach WebGPU through the page (navigator.gpu), not through wgpu-native: not here yet. */
wk_device *wk_webgpu_open(const char *lib_path) {
    (void)lib_path;
    return NULL;
}
const char *wk_webgpu_reason(void) { return "the webgpu device is not supported yet in the WebAssembly build"; }
const char *wk_webgpu_device_name(void) { return ""; }
const char *wk_webgpu_backend(void) { return ""; }
void wk_webgpu_memory(int64_t out[4]) { out[0] = out[1] = out[2] = out[3] = 0; }
#else

#include <dlfcn.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>

/* ---- the C ABI of webgpu.h (wgpu 0.32.0 wheel), the parts used ---- */
typedef struct WGPUInstanceImpl *WGPUInstance;
typedef struct WGPUAdapterImpl *WGPUAdapter;
typedef struct WGPUDeviceImpl *WGPUDevice;
typedef struct WGPUQueueImpl *WGPUQueue;
typedef struct WGPUBufferImpl *WGPUBuffer;
typedef struct WGPUCommandEncoderImpl *WGPUCommandEncoder;
typedef struct WGPUCommandBufferImpl *WGPUCommandBuffer;
typedef struct WGPUShaderModuleImpl *WGPUShaderModule;
typedef struct WGPUComputePipelineImpl *WGPUComputePipeline;
typedef struct WGPUBindGroupLayoutImpl *WGPUBindGroupLayout;
typedef struct WGPUBindGroupImpl *WGPUBindGroup;
typedef struct WGPUComputePassEncoderImpl *WGPUComputePassEncoder;
typedef uint32_t WGPUBool;
typedef uint64_t WGPUFlags;
typedef uint32_t WGPUEnum; /* every WGPU* enum is a 32-bit int (each has a _Force32 = 0x7FFFFFFF member) */
typedef struct {
    const char *data;
    size_t length;
} WGPUStringView;
typedef struct WGPUChainedStruct {
    struct WGPUChainedStruct *next;
    WGPUEnum sType;
} WGPUChainedStruct;
typedef struct {
    uint64_t id;
} WGPUFuture;
typedef void (*WGPURequestAdapterCallback)(WGPUEnum status, WGPUAdapter adapter, WGPUStringView message, void *u1,
                                           void *u2);
typedef void (*WGPURequestDeviceCallback)(WGPUEnum status, WGPUDevice device, WGPUStringView message, void *u1,
                                          void *u2);
typedef void (*WGPUBufferMapCallback)(WGPUEnum status, WGPUStringView message, void *u1, void *u2);
typedef void (*WGPUDeviceLostCallback)(const WGPUDevice *device, WGPUEnum reason, WGPUStringView message, void *u1,
                                       void *u2);
typedef void (*WGPUUncapturedErrorCallback)(const WGPUDevice *device, WGPUEnum type, WGPUStringView message,
                                            void *u1, void *u2);
typedef struct { /* WGPURequestAdapterCallbackInfo, WGPURequestDeviceCallbackInfo, WGPUBufferMapCallbackInfo and
                    WGPUDeviceLostCallbackInfo share this layout; only the callback's type differs */
    WGPUChainedStruct *nextInChain;
    WGPUEnum mode;
    void (*callback)(void);
    void *userdata1;
    void *userdata2;
} WGPUCallbackInfo;
typedef struct {
    WGPUChainedStruct *nextInChain;
    WGPUUncapturedErrorCallback callback;
    void *userdata1;
    void *userdata2;
} WGPUUncapturedErrorCallbackInfo;
typedef struct {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
} WGPUQueueDescriptor;
typedef struct {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
    size_t requiredFeatureCount;
    const WGPUEnum *requiredFeatures;
    const void *requiredLimits; /* NULL: the default limits (maxBufferSize 256 MiB) */
    WGPUQueueDescriptor defaultQueue;
    WGPUCallbackInfo deviceLostCallbackInfo;
    WGPUUncapturedErrorCallbackInfo uncapturedErrorCallbackInfo;
} WGPUDeviceDescriptor;
typedef struct {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
    WGPUFlags usage;
    uint64_t size;
    WGPUBool mappedAtCreation;
} WGPUBufferDescriptor;
typedef struct {
    WGPUChainedStruct *nextInChain;
    WGPUStringView vendor, architecture, device, description;
    WGPUEnum backendType, adapterType;
    uint32_t vendorID, deviceID, subgroupMinSize, subgroupMaxSize;
} WGPUAdapterInfo;

typedef struct {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
} WGPUShaderModuleDescriptor;
typedef struct {
    WGPUChainedStruct chain; /* sType 2: WGPUSType_ShaderSourceWGSL */
    WGPUStringView code;
} WGPUShaderSourceWGSL;
typedef struct {
    WGPUChainedStruct *nextInChain;
    WGPUShaderModule module;
    WGPUStringView entryPoint;
    size_t constantCount;
    const void *constants;
} WGPUComputeState;
typedef struct {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
    const void *layout; /* NULL: "auto", the layout reflected from the shader */
    WGPUComputeState compute;
} WGPUComputePipelineDescriptor;
typedef struct {
    WGPUChainedStruct *nextInChain;
    uint32_t binding;
    WGPUBuffer buffer;
    uint64_t offset;
    uint64_t size;
    const void *sampler, *textureView;
} WGPUBindGroupEntry;
typedef struct {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
    WGPUBindGroupLayout layout;
    size_t entryCount;
    const WGPUBindGroupEntry *entries;
} WGPUBindGroupDescriptor;

enum {
    CALLBACK_ALLOW_PROCESS_EVENTS = 2, /* WGPUCallbackMode_AllowProcessEvents */
    STATUS_SUCCESS = 1,                /* WGPURequestAdapterStatus_, WGPURequestDeviceStatus_, WGPUMapAsyncStatus_,
                                          WGPUStatus_Success */
    ERROR_OUT_OF_MEMORY = 3,           /* WGPUErrorType_OutOfMemory */
};
static const WGPUFlags USAGE_MAP_READ = 0x1, USAGE_COPY_SRC = 0x4, USAGE_COPY_DST = 0x8, USAGE_STORAGE = 0x80;
static const WGPUFlags MAP_READ = 0x1;
#define MAX_BUFFER ((uint64_t)256 << 20) /* the default maxBufferSize (and maxStorageBufferBindingSize: 128 MiB) */

#define WGPU_FUNCTIONS(X)                                                                                        \
    X(WGPUInstance, wgpuCreateInstance, (const void *))                                                          \
    X(WGPUFuture, wgpuInstanceRequestAdapter, (WGPUInstance, const void *, WGPUCallbackInfo))                   \
    X(void, wgpuInstanceProcessEvents, (WGPUInstance))                                                           \
    X(WGPUFuture, wgpuAdapterRequestDevice, (WGPUAdapter, const WGPUDeviceDescriptor *, WGPUCallbackInfo))      \
    X(WGPUEnum, wgpuAdapterGetInfo, (WGPUAdapter, WGPUAdapterInfo *))                                            \
    X(void, wgpuAdapterInfoFreeMembers, (WGPUAdapterInfo))                                                       \
    X(WGPUQueue, wgpuDeviceGetQueue, (WGPUDevice))                                                               \
    X(WGPUBuffer, wgpuDeviceCreateBuffer, (WGPUDevice, const WGPUBufferDescriptor *))                            \
    X(void, wgpuBufferDestroy, (WGPUBuffer))                                                                     \
    X(void, wgpuBufferRelease, (WGPUBuffer))                                                                     \
    X(void, wgpuQueueWriteBuffer, (WGPUQueue, WGPUBuffer, uint64_t, const void *, size_t))                      \
    X(WGPUCommandEncoder, wgpuDeviceCreateCommandEncoder, (WGPUDevice, const void *))                            \
    X(void, wgpuCommandEncoderCopyBufferToBuffer,                                                                \
      (WGPUCommandEncoder, WGPUBuffer, uint64_t, WGPUBuffer, uint64_t, uint64_t))                                \
    X(void, wgpuCommandEncoderClearBuffer, (WGPUCommandEncoder, WGPUBuffer, uint64_t, uint64_t))                 \
    X(WGPUCommandBuffer, wgpuCommandEncoderFinish, (WGPUCommandEncoder, const void *))                           \
    X(void, wgpuCommandEncoderRelease, (WGPUCommandEncoder))                                                     \
    X(void, wgpuCommandBufferRelease, (WGPUCommandBuffer))                                                       \
    X(void, wgpuQueueSubmit, (WGPUQueue, size_t, const WGPUCommandBuffer *))                                     \
    X(WGPUFuture, wgpuBufferMapAsync, (WGPUBuffer, WGPUFlags, size_t, size_t, WGPUCallbackInfo))                \
    X(const void *, wgpuBufferGetConstMappedRange, (WGPUBuffer, size_t, size_t))                                 \
    X(void, wgpuBufferUnmap, (WGPUBuffer))                                                                       \
    X(WGPUShaderModule, wgpuDeviceCreateShaderModule, (WGPUDevice, const WGPUShaderModuleDescriptor *))          \
    X(void, wgpuShaderModuleRelease, (WGPUShaderModule))                                                         \
    X(WGPUComputePipeline, wgpuDeviceCreateComputePipeline, (WGPUDevice, const WGPUComputePipelineDescriptor *)) \
    X(WGPUBindGroupLayout, wgpuComputePipelineGetBindGroupLayout, (WGPUComputePipeline, uint32_t))               \
    X(void, wgpuBindGroupLayoutRelease, (WGPUBindGroupLayout))                                                   \
    X(WGPUBindGroup, wgpuDeviceCreateBindGroup, (WGPUDevice, const WGPUBindGroupDescriptor *))                   \
    X(void, wgpuBindGroupRelease, (WGPUBindGroup))                                                               \
    X(WGPUComputePassEncoder, wgpuCommandEncoderBeginComputePass, (WGPUCommandEncoder, const void *))            \
    X(void, wgpuComputePassEncoderSetPipeline, (WGPUComputePassEncoder, WGPUComputePipeline))                    \
    X(void, wgpuComputePassEncoderSetBindGroup, (WGPUComputePassEncoder, uint32_t, WGPUBindGroup, size_t,       \
                                                 const uint32_t *))                                              \
    X(void, wgpuComputePassEncoderDispatchWorkgroups, (WGPUComputePassEncoder, uint32_t, uint32_t, uint32_t))    \
    X(void, wgpuComputePassEncoderEnd, (WGPUComputePassEncoder))                                                 \
    X(void, wgpuComputePassEncoderRelease, (WGPUComputePassEncoder))                                             \
    X(WGPUBool, wgpuDevicePoll, (WGPUDevice, WGPUBool, const uint64_t *)) /* wgpu.h */

static struct {
#define X(ret, name, args) ret(*name) args;
    WGPU_FUNCTIONS(X)
#undef X
} G;

/* ---- state: opened once under `lock`; every device call holds it too ---- */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool tried, opened;
static char reason[1024], name[256], backend[32];
static WGPUInstance instance;
static WGPUAdapter adapter;
static WGPUDevice device;
static WGPUQueue queue;
static char gpu_error[512]; /* the last uncaptured wgpu error or device loss, "" if none */
static bool lost;

typedef struct {
    uintptr_t base; /* the block's first fake address */
    size_t size;    /* its bucket: the buffer's size in bytes, a power of two >= 256 */
    WGPUBuffer buf;
    bool idle; /* in the pool, free for the next alloc of this size */
} block;
static block *blocks; /* [nblocks], sorted by base */
static size_t nblocks, cap_blocks, idle_bytes, live_bytes; /* bucket bytes idle in the pool / handed out */
static int64_t buffers_made;                               /* GPU buffers ever created for blocks */
#define POOL_MAX ((size_t)256 << 20)
#define RESERVE ((size_t)1 << 40) /* fake address space: 1 TiB, PROT_NONE, never backed */
static uintptr_t space, space_next;
static WGPUBuffer staging; /* MapRead | CopyDst, staging_size bytes, for reads */
static size_t staging_size;

static void set_reason(const char *fmt, const char *a, const char *b) { snprintf(reason, sizeof reason, fmt, a, b); }
static void sv_copy(char *dst, size_t cap, WGPUStringView s) {
    size_t n = s.data ? (s.length == SIZE_MAX ? strlen(s.data) : s.length) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, s.data, n);
    dst[n] = 0;
}

static void on_error(const WGPUDevice *d, WGPUEnum type, WGPUStringView message, void *u1, void *u2) {
    (void)d, (void)u1, (void)u2;
    char m[400];
    sv_copy(m, sizeof m, message);
    snprintf(gpu_error, sizeof gpu_error, "%s%s", type == ERROR_OUT_OF_MEMORY ? "out of memory: " : "", m);
}
static void on_lost(const WGPUDevice *d, WGPUEnum why, WGPUStringView message, void *u1, void *u2) {
    (void)d, (void)why, (void)u1, (void)u2;
    if (!opened) return; /* the device going away at exit, or a failed request: not an error of a call */
    char m[400];
    sv_copy(m, sizeof m, message);
    snprintf(gpu_error, sizeof gpu_error, "device lost: %s", m);
    lost = true;
}

typedef struct {
    bool done;
    WGPUEnum status;
    void *object;
    char message[300];
} answer;
static void on_adapter(WGPUEnum status, WGPUAdapter a, WGPUStringView message, void *u1, void *u2) {
    (void)u2;
    answer *r = u1;
    r->status = status, r->object = a, r->done = true;
    sv_copy(r->message, sizeof r->message, message);
}
static void on_device(WGPUEnum status, WGPUDevice d, WGPUStringView message, void *u1, void *u2) {
    (void)u2;
    answer *r = u1;
    r->status = status, r->object = d, r->done = true;
    sv_copy(r->message, sizeof r->message, message);
}
static void on_map(WGPUEnum status, WGPUStringView message, void *u1, void *u2) {
    (void)u2;
    answer *r = u1;
    r->status = status, r->done = true;
    sv_copy(r->message, sizeof r->message, message);
}

/* Waits for r by processing the instance's events (after waiting on the device once there is one), up to 30 s. */
static bool wait_for(answer *r) {
    for (int i = 0; i < 30000 && !r->done; i++) {
        if (device) G.wgpuDevicePoll(device, 1, NULL); /* blocks until the queued work is done */
        G.wgpuInstanceProcessEvents(instance);
        if (r->done) break;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return r->done;
}

static const char *backend_name(WGPUEnum b) {
    static const char *names[] = {"Undefined", "Null",  "WebGPU", "D3D11", "D3D12",
                                  "Metal",     "Vulkan", "OpenGL", "OpenGLES"};
    return b < sizeof names / sizeof *names ? names[b] : "unknown";
}

static wk_device webgpu_device;
static void fill_kernels(void);

static bool open_locked(const char *lib_path) {
    const char *path = getenv("WICK_WGPU_LIB");
    if (!path || !*path) path = lib_path && *lib_path ? lib_path : "libwgpu_native.so";
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        set_reason("wgpu-native could not be loaded (%s): %s; install it with `pip install wgpu==0.32.0` or set "
                   "WICK_WGPU_LIB to libwgpu_native-release.so",
                   path, e ? e : "unknown error");
        return false;
    }
#define X(ret, fn, args)                                                                                         \
    *(void **)&G.fn = dlsym(h, #fn);                                                                             \
    if (!G.fn) {                                                                                                 \
        set_reason("%s has no %s (wick needs wgpu-native 29, as in the wgpu 0.32.0 wheel)", path, #fn);          \
        return false;                                                                                            \
    }
    WGPU_FUNCTIONS(X)
#undef X
    instance = G.wgpuCreateInstance(NULL);
    if (!instance) {
        set_reason("%s%s: wgpuCreateInstance failed", path, "");
        return false;
    }
    answer a = {0};
    WGPUCallbackInfo ai = {NULL, CALLBACK_ALLOW_PROCESS_EVENTS, (void (*)(void))on_adapter, &a, NULL};
    G.wgpuInstanceRequestAdapter(instance, NULL, ai);
    if (!wait_for(&a) || a.status != STATUS_SUCCESS || !a.object) {
        set_reason("no WebGPU adapter: %s%s (for a software one install Debian's mesa-vulkan-drivers, lavapipe)",
                   a.done ? (a.message[0] ? a.message : "none found") : "the request did not answer in 30 s", "");
        return false;
    }
    adapter = a.object;
    WGPUAdapterInfo info;
    memset(&info, 0, sizeof info);
    if (G.wgpuAdapterGetInfo(adapter, &info) == STATUS_SUCCESS) {
        sv_copy(name, sizeof name, info.device);
        snprintf(backend, sizeof backend, "%s", backend_name(info.backendType));
        G.wgpuAdapterInfoFreeMembers(info);
    }
    WGPUDeviceDescriptor dd;
    memset(&dd, 0, sizeof dd);
    dd.deviceLostCallbackInfo = (WGPUCallbackInfo){NULL, CALLBACK_ALLOW_PROCESS_EVENTS, (void (*)(void))on_lost, NULL, NULL};
    dd.uncapturedErrorCallbackInfo.callback = on_error;
    answer d = {0};
    WGPUCallbackInfo di = {NULL, CALLBACK_ALLOW_PROCESS_EVENTS, (void (*)(void))on_device, &d, NULL};
    G.wgpuAdapterRequestDevice(adapter, &dd, di);
    if (!wait_for(&d) || d.status != STATUS_SUCCESS || !d.object) {
        set_reason("the WebGPU adapter '%s' gave no device: %s", name,
                   d.done ? d.message : "the request did not answer in 30 s");
        return false;
    }
    device = d.object;
    queue = G.wgpuDeviceGetQueue(device);
    void *r = mmap(NULL, RESERVE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) {
        set_reason("could not reserve address space for webgpu buffers%s%s", "", "");
        return false;
    }
    space = space_next = (uintptr_t)r;
    return true;
}

wk_device *wk_webgpu_open(const char *lib_path) {
    pthread_mutex_lock(&lock);
    if (!tried) {
        tried = true;
        opened = open_locked(lib_path);
        if (opened) fill_kernels();
    }
    pthread_mutex_unlock(&lock);
    return opened ? &webgpu_device : NULL;
}
const char *wk_webgpu_reason(void) { return opened ? "" : reason; }
const char *wk_webgpu_device_name(void) { return opened ? name : ""; }
const char *wk_webgpu_backend(void) { return opened ? backend : ""; }

/* ---- errors ---- */
static int check_gpu(const char *what) {
    if (!gpu_error[0]) return 0;
    wk__error(WK_RUNTIME_ERROR, "webgpu: %s failed: %s", what, gpu_error);
    if (!lost) gpu_error[0] = 0;
    return -1;
}

/* ---- blocks ---- */
static block *find(const void *p, size_t *offset) { /* the block holding fake address p */
    uintptr_t a = (uintptr_t)p;
    size_t lo = 0, hi = nblocks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (blocks[mid].base <= a) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return NULL;
    block *b = &blocks[lo - 1];
    if (a - b->base >= b->size) return NULL;
    *offset = a - b->base;
    return b;
}

static WGPUBuffer new_buffer(uint64_t size, WGPUFlags usage) {
    WGPUBufferDescriptor bd = {NULL, {NULL, 0}, usage, size, 0};
    WGPUBuffer b = G.wgpuDeviceCreateBuffer(device, &bd);
    if (b && gpu_error[0]) { /* an out-of-memory (or other) error on creation: the buffer is invalid */
        G.wgpuBufferRelease(b);
        return NULL;
    }
    return b;
}
static void drop_buffer(WGPUBuffer b) {
    G.wgpuBufferDestroy(b);
    G.wgpuBufferRelease(b);
}

static void drop_block(size_t i) { /* destroys block i's buffer and removes it from the table */
    drop_buffer(blocks[i].buf);
    memmove(&blocks[i], &blocks[i + 1], (nblocks - i - 1) * sizeof *blocks);
    nblocks--;
}

static void *gpu_alloc(size_t nbytes) {
    if (nbytes > MAX_BUFFER) return NULL; /* beyond the device's maxBufferSize: out of memory for wick */
    size_t size = 256;
    while (size < nbytes) size <<= 1;
    void *p = NULL;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nblocks; i++)
        if (blocks[i].idle && blocks[i].size == size) {
            blocks[i].idle = false;
            idle_bytes -= size;
            live_bytes += size;
            p = (void *)blocks[i].base;
            goto out;
        }
    if (space_next - space > RESERVE - size || lost) goto out;
    if (nblocks == cap_blocks) {
        size_t cap = cap_blocks ? cap_blocks * 2 : 64;
        block *nb = realloc(blocks, cap * sizeof *nb);
        if (!nb) goto out;
        blocks = nb, cap_blocks = cap;
    }
    WGPUBuffer b = new_buffer(size, USAGE_STORAGE | USAGE_COPY_SRC | USAGE_COPY_DST);
    if (!b) {
        gpu_error[0] = 0; /* reported as wick's out-of-memory error by the caller */
        goto out;
    }
    blocks[nblocks++] = (block){space_next, size, b, false};
    buffers_made++;
    live_bytes += size;
    p = (void *)space_next;
    space_next += size;
out:
    pthread_mutex_unlock(&lock);
    return p;
}

static void gpu_free(void *p, size_t nbytes) {
    (void)nbytes;
    pthread_mutex_lock(&lock);
    size_t off;
    block *b = find(p, &off);
    if (!b || off || b->idle) {
        fprintf(stderr, "webgpu: freeing %p (%zu bytes), not a live block of this device\n", p, nbytes);
        abort();
    }
    live_bytes -= b->size;
    size_t i = (size_t)(b - blocks);
    while (blocks[i].size <= POOL_MAX && idle_bytes + blocks[i].size > POOL_MAX) { /* evict the largest idle */
        size_t v = SIZE_MAX;
        for (size_t j = 0; j < nblocks; j++)
            if (blocks[j].idle && (v == SIZE_MAX || blocks[j].size > blocks[v].size)) v = j;
        idle_bytes -= blocks[v].size;
        drop_block(v);
        if (v < i) i--;
    }
    if (blocks[i].size <= POOL_MAX) {
        blocks[i].idle = true;
        idle_bytes += blocks[i].size;
    } else {
        drop_block(i);
    }
    pthread_mutex_unlock(&lock);
}

/* Looks up [p, p + n) in one live block. */
static block *range(const void *p, size_t n, size_t *off, const char *what) {
    block *b = find(p, off);
    if (!b || b->idle || n > b->size - *off) {
        wk__error(WK_RUNTIME_ERROR, "webgpu: %s of %zu bytes at %p is outside every live buffer", what, n, p);
        return NULL;
    }
    return b;
}

static int submit(WGPUCommandEncoder enc) {
    WGPUCommandBuffer cb = G.wgpuCommandEncoderFinish(enc, NULL);
    G.wgpuCommandEncoderRelease(enc);
    G.wgpuQueueSubmit(queue, 1, &cb);
    G.wgpuCommandBufferRelease(cb);
    return 0;
}

/* Reads n bytes (n and off multiples of 4) of b at off into dst, through the staging buffer. Lock held. */
static int read_aligned(void *dst, WGPUBuffer b, size_t off, size_t n) {
    if (!n) return 0;
    if (staging_size < n) {
        if (staging) drop_buffer(staging);
        staging = NULL, staging_size = 0;
        size_t size = 256;
        while (size < n) size <<= 1;
        staging = new_buffer(size, USAGE_MAP_READ | USAGE_COPY_DST);
        if (!staging) {
            check_gpu("allocating a staging buffer");
            return -1;
        }
        staging_size = size;
    }
    WGPUCommandEncoder enc = G.wgpuDeviceCreateCommandEncoder(device, NULL);
    G.wgpuCommandEncoderCopyBufferToBuffer(enc, b, off, staging, 0, n);
    submit(enc);
    answer m = {0};
    WGPUCallbackInfo mi = {NULL, CALLBACK_ALLOW_PROCESS_EVENTS, (void (*)(void))on_map, &m, NULL};
    G.wgpuBufferMapAsync(staging, MAP_READ, 0, n, mi);
    if (!wait_for(&m) || m.status != STATUS_SUCCESS) {
        if (!check_gpu("reading a buffer back"))
            wk__error(WK_RUNTIME_ERROR, "webgpu: mapping the staging buffer failed: %s",
                      m.done ? m.message : "no answer in 30 s");
        return -1;
    }
    const void *src = G.wgpuBufferGetConstMappedRange(staging, 0, n);
    if (src) memcpy(dst, src, n);
    G.wgpuBufferUnmap(staging);
    if (!src) {
        wk__error(WK_RUNTIME_ERROR, "webgpu: the staging buffer has no mapped range");
        return -1;
    }
    return check_gpu("reading a buffer back");
}

/* Writes n bytes at byte offset off of b, any alignment: the 4-byte words the range touches at either end are
 * read first and patched. Lock held. */
static int write_any(WGPUBuffer b, size_t off, const void *src, size_t n) {
    if (!n) return 0;
    size_t lo = off & ~(size_t)3, hi = (off + n + 3) & ~(size_t)3;
    if (lo == off && hi == off + n) {
        G.wgpuQueueWriteBuffer(queue, b, off, src, n);
        return check_gpu("writing a buffer");
    }
    unsigned char *tmp = wk__malloc(hi - lo); /* [hi - lo] bytes: the aligned words covering the range */
    if (!tmp) return -1;
    int rc = read_aligned(tmp, b, lo, 4);
    if (!rc && hi - lo > 4) rc = read_aligned(tmp + (hi - lo - 4), b, hi - 4, 4);
    if (!rc) {
        memcpy(tmp + (off - lo), src, n);
        G.wgpuQueueWriteBuffer(queue, b, lo, tmp, hi - lo);
        rc = check_gpu("writing a buffer");
    }
    free(tmp);
    return rc;
}

/* Reads n bytes at byte offset off of b, any alignment. Lock held. */
static int read_any(void *dst, WGPUBuffer b, size_t off, size_t n) {
    if (!n) return 0;
    size_t lo = off & ~(size_t)3, hi = (off + n + 3) & ~(size_t)3;
    if (lo == off && hi == off + n) return read_aligned(dst, b, off, n);
    unsigned char *tmp = wk__malloc(hi - lo); /* [hi - lo] bytes: the aligned words covering the range */
    if (!tmp) return -1;
    int rc = read_aligned(tmp, b, lo, hi - lo);
    if (!rc) memcpy(dst, tmp + (off - lo), n);
    free(tmp);
    return rc;
}

static int gpu_copy_from_host(void *dst, const void *src, size_t nbytes) {
    if (!nbytes) return 0;
    pthread_mutex_lock(&lock);
    size_t off;
    block *b = range(dst, nbytes, &off, "a copy from the host");
    int rc = b ? write_any(b->buf, off, src, nbytes) : -1;
    pthread_mutex_unlock(&lock);
    return rc;
}
static int gpu_copy_to_host(void *dst, const void *src, size_t nbytes) {
    if (!nbytes) return 0;
    pthread_mutex_lock(&lock);
    size_t off;
    block *b = range(src, nbytes, &off, "a copy to the host");
    int rc = b ? read_any(dst, b->buf, off, nbytes) : -1;
    pthread_mutex_unlock(&lock);
    return rc;
}
static int gpu_copy(void *dst, const wk_device *src_device, const void *src, size_t nbytes) {
    if (!nbytes) return 0;
    if (src_device->host_access) return gpu_copy_from_host(dst, src, nbytes);
    if (src_device != &webgpu_device) { /* another device that is not host-visible: through host memory */
        void *tmp = wk__malloc(nbytes); /* [nbytes] */
        if (!tmp) return -1;
        int rc = src_device->copy_to_host(tmp, src, nbytes);
        if (!rc) rc = gpu_copy_from_host(dst, tmp, nbytes);
        free(tmp);
        return rc;
    }
    pthread_mutex_lock(&lock);
    size_t doff, soff;
    block *d = range(dst, nbytes, &doff, "a device copy (destination)");
    block *s = d ? range(src, nbytes, &soff, "a device copy (source)") : NULL;
    int rc = -1;
    if (s && !(doff % 4) && !(soff % 4) && !(nbytes % 4)) {
        WGPUCommandEncoder enc = G.wgpuDeviceCreateCommandEncoder(device, NULL);
        G.wgpuCommandEncoderCopyBufferToBuffer(enc, s->buf, soff, d->buf, doff, nbytes);
        submit(enc);
        rc = check_gpu("a buffer-to-buffer copy");
    } else if (s) { /* unaligned: through host memory */
        void *tmp = wk__malloc(nbytes); /* [nbytes] */
        if (tmp) {
            rc = read_any(tmp, s->buf, soff, nbytes);
            if (!rc) rc = write_any(d->buf, doff, tmp, nbytes);
            free(tmp);
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int gpu_fill(void *dst, size_t count, const void *elem, size_t elem_size) {
    if (!count || !elem_size) return 0;
    if (count > SIZE_MAX / elem_size) {
        wk__error(WK_RUNTIME_ERROR, "webgpu: fill of %zu elements of %zu bytes overflows", count, elem_size);
        return -1;
    }
    size_t n = count * elem_size;
    bool zero = true;
    for (size_t i = 0; i < elem_size; i++) zero = zero && !((const unsigned char *)elem)[i];
    pthread_mutex_lock(&lock);
    size_t off;
    block *b = range(dst, n, &off, "a fill");
    int rc = -1;
    if (b && zero && !(off % 4) && !(n % 4)) {
        WGPUCommandEncoder enc = G.wgpuDeviceCreateCommandEncoder(device, NULL);
        G.wgpuCommandEncoderClearBuffer(enc, b->buf, off, n);
        submit(enc);
        rc = check_gpu("a fill");
    } else if (b) {
        unsigned char *tmp = wk__malloc(n); /* [count * elem_size]: the pattern, written in one go */
        if (tmp) {
            for (size_t i = 0; i < count; i++) memcpy(tmp + i * elem_size, elem, elem_size);
            rc = write_any(b->buf, off, tmp, n);
            free(tmp);
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int gpu_synchronize(void) {
    pthread_mutex_lock(&lock);
    G.wgpuDevicePoll(device, 1, NULL);
    G.wgpuInstanceProcessEvents(instance);
    int rc = check_gpu("synchronize");
    pthread_mutex_unlock(&lock);
    return rc;
}

void wk_webgpu_memory(int64_t out[4]) {
    pthread_mutex_lock(&lock);
    int64_t pooled = 0;
    for (size_t i = 0; i < nblocks; i++) pooled += blocks[i].idle;
    out[0] = (int64_t)live_bytes, out[1] = (int64_t)(live_bytes + idle_bytes), out[2] = buffers_made;
    out[3] = (int64_t)nblocks - pooled;
    pthread_mutex_unlock(&lock);
}

/* ---- kernels (Note [WGSL kernels] in webgpu/gpu.h) ---- */
#define MAX_BINDING ((uint64_t)128 << 20) /* the default maxStorageBufferBindingSize */
static WGPUComputePipeline pipelines[WK_WEBGPU_MAX_PIPELINES]; /* [slot]: compiled on first use, kept */

static WGPUComputePipeline pipeline(int slot, const char *wgsl) {
    if (pipelines[slot]) return pipelines[slot];
    WGPUShaderSourceWGSL src = {{NULL, 2}, {wgsl, strlen(wgsl)}};
    WGPUShaderModuleDescriptor md = {&src.chain, {NULL, 0}};
    WGPUShaderModule m = G.wgpuDeviceCreateShaderModule(device, &md);
    if (!m || check_gpu("compiling a WGSL kernel")) {
        if (m) G.wgpuShaderModuleRelease(m);
        return NULL;
    }
    WGPUComputePipelineDescriptor pd = {NULL, {NULL, 0}, NULL, {NULL, m, {"main", 4}, 0, NULL}};
    WGPUComputePipeline p = G.wgpuDeviceCreateComputePipeline(device, &pd);
    G.wgpuShaderModuleRelease(m);
    if (!p || check_gpu("creating a compute pipeline")) return NULL;
    return pipelines[slot] = p;
}

int wk__webgpu_dispatch(int slot, const char *wgsl, int n, void *const *ptrs, uint32_t *meta, size_t nmeta,
                        uint64_t threads) {
    if (slot < 0 || slot >= WK_WEBGPU_MAX_PIPELINES || n < 1 || n > 7 || nmeta < 2 + (size_t)n) {
        wk__error(WK_RUNTIME_ERROR, "webgpu: bad dispatch (slot %d, %d buffers)", slot, n);
        return -1;
    }
    if (!threads) return 0;
    uint64_t groups = (threads + 63) / 64, gx = groups < 65535 ? groups : 65535, gy = (groups + gx - 1) / gx;
    if (gy > 65535) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "webgpu: a kernel over %llu elements is not supported yet",
                  (unsigned long long)threads);
        return -1;
    }
    pthread_mutex_lock(&lock);
    int rc = -1;
    WGPUBindGroupEntry e[8]; /* [n + 1]: the tensors' buffers, then meta */
    memset(e, 0, sizeof e);
    WGPUBuffer mb = NULL;
    for (int i = 0; i < n; i++) {
        size_t off;
        block *b = find(ptrs[i], &off);
        if (!b || b->idle || off % 4) {
            wk__error(WK_RUNTIME_ERROR, "webgpu: kernel argument %d at %p is not in a live buffer", i, ptrs[i]);
            goto out;
        }
        if (b->size > MAX_BINDING) {
            wk__error(WK_NOT_IMPLEMENTED_ERROR,
                      "webgpu: a kernel on a buffer of %zu bytes (over 128 MiB) is not supported yet", b->size);
            goto out;
        }
        meta[2 + i] += (uint32_t)(off / 4); /* the storage's first element inside its block */
        e[i] = (WGPUBindGroupEntry){NULL, (uint32_t)i, b->buf, 0, b->size, NULL, NULL};
    }
    WGPUComputePipeline p = pipeline(slot, wgsl);
    if (!p) goto out;
    mb = new_buffer((nmeta * 4 + 15) & ~(uint64_t)15, USAGE_STORAGE | USAGE_COPY_DST);
    if (!mb) {
        check_gpu("allocating a kernel's parameters");
        goto out;
    }
    G.wgpuQueueWriteBuffer(queue, mb, 0, meta, nmeta * 4);
    e[n] = (WGPUBindGroupEntry){NULL, (uint32_t)n, mb, 0, (nmeta * 4 + 15) & ~(uint64_t)15, NULL, NULL};
    WGPUBindGroupLayout bl = G.wgpuComputePipelineGetBindGroupLayout(p, 0);
    WGPUBindGroupDescriptor bd = {NULL, {NULL, 0}, bl, (size_t)n + 1, e};
    WGPUBindGroup bg = G.wgpuDeviceCreateBindGroup(device, &bd);
    G.wgpuBindGroupLayoutRelease(bl);
    if (!bg || check_gpu("binding a kernel's buffers")) {
        if (bg) G.wgpuBindGroupRelease(bg);
        goto out;
    }
    WGPUCommandEncoder enc = G.wgpuDeviceCreateCommandEncoder(device, NULL);
    WGPUComputePassEncoder pass = G.wgpuCommandEncoderBeginComputePass(enc, NULL);
    G.wgpuComputePassEncoderSetPipeline(pass, p);
    G.wgpuComputePassEncoderSetBindGroup(pass, 0, bg, 0, NULL);
    G.wgpuComputePassEncoderDispatchWorkgroups(pass, (uint32_t)gx, (uint32_t)gy, 1);
    G.wgpuComputePassEncoderEnd(pass);
    G.wgpuComputePassEncoderRelease(pass);
    submit(enc);
    G.wgpuBindGroupRelease(bg);
    rc = check_gpu("a kernel");
out:
    if (mb) G.wgpuBufferRelease(mb); /* wgpu keeps it alive until the submitted work is done */
    pthread_mutex_unlock(&lock);
    return rc;
}

/* The kernel table: the views, whose CPU implementations only make a new header over the same storage (no data
 * read, so they are right for any device); every other slot is empty (NotImplementedError) until its WGSL kernel.
 * Filled when the device opens. */
#define VIEW_OPS(X)                                                                                              \
    X(detach_fn) X(view) X(_unsafe_view) X(view_dtype) X(_reshape_alias) X(expand) X(t) X(permute) X(transpose)  \
    X(unsqueeze) X(squeeze) X(squeeze_dim) X(squeeze_dims) X(select) X(slice) X(narrow) X(as_strided)           \
    X(diagonal) X(unfold) X(movedim) X(movedim_int) X(unbind) X(split) X(split_sizes) X(split_with_sizes)       \
    X(chunk) X(t_) X(transpose_) X(unsqueeze_) X(squeeze_) X(squeeze__dim) X(squeeze__dims)
/* And the dtype casts of Tensor.to: wk__to_dtype keeps a device tensor on its device and copies through the host
 * (wk__copy_, core/host.h) until a WGSL cast kernel replaces them. */
#define CAST_OPS(X) X(to_dtype) X(to_device) X(to_other) X(_to_copy)
/* And the composites whose CPU implementations only call other ops (each reaches this table again), never data. */
#define COMPOSITE_OPS(X)                                                                                         \
    X(linear) X(matmul) X(reshape) X(flatten) X(reshape_as) X(view_as) X(expand_as) X(broadcast_tensors)        \
    X(broadcast_to) X(sum_backward) X(mean_backward)
static wk_kernel_fn kernels[WK_NUM_OPS]; /* [WK_NUM_OPS] */
static void fill_kernels(void) {
#define X(op) kernels[WK_OP_##op] = wk__cpu_kernels[WK_OP_##op];
    VIEW_OPS(X)
    CAST_OPS(X)
    COMPOSITE_OPS(X)
#undef X
    wk__webgpu_elementwise_kernels(kernels);
    wk__webgpu_reduce_kernels(kernels);
    wk__webgpu_matmul_kernels(kernels);
    wk__webgpu_nn_kernels(kernels);
}

static wk_device webgpu_device = {
    .name = "webgpu",
    .host_access = false,
    .alloc = gpu_alloc,
    .free = gpu_free,
    .copy_from_host = gpu_copy_from_host,
    .copy_to_host = gpu_copy_to_host,
    .copy = gpu_copy,
    .fill = gpu_fill,
    .synchronize = gpu_synchronize,
    .copy_tensor = wk__webgpu_copy_tensor,
    .kernels = kernels,
};
#endif
