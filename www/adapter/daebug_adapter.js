export function last_word(code) {
    const ret = wasm.last_word(code);
    return ret;
}

export function last_word_now(code) {
    wasm.last_word_now(code);
}

export function start(script_url) {
    const ptr0 = passStringToWasm0(script_url, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    wasm.start(ptr0, len0);
}

export function version() {
    let deferred1_0;
    let deferred1_1;
    try {
        const ret = wasm.version();
        deferred1_0 = ret[0];
        deferred1_1 = ret[1];
        return getStringFromWasm0(ret[0], ret[1]);
    } finally {
        wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
    }
}
function __wbg_get_imports() {
    const import0 = {
        __proto__: null,
        $3j: function(arg0) {
            const v = arg0;
            const ret = typeof(v) === 'boolean' ? v : undefined;
            return isLikeNone(ret) ? 0xFFFFFF : ret ? 1 : 0;
        },
        $3e: function(arg0) {
            const ret = !arg0;
            return ret;
        },
        $3k: function(arg0) {
            const ret = typeof(arg0) === 'function';
            return ret;
        },
        $3d: function(arg0) {
            const ret = arg0 === null;
            return ret;
        },
        $3f: function(arg0) {
            const val = arg0;
            const ret = typeof(val) === 'object' && val !== null;
            return ret;
        },
        $3g: function(arg0) {
            const ret = typeof(arg0) === 'string';
            return ret;
        },
        $3l: function(arg0) {
            const ret = arg0 === undefined;
            return ret;
        },
        $3h: function(arg0, arg1) {
            const obj = arg1;
            const ret = typeof(obj) === 'number' ? obj : undefined;
            getDataViewMemory0().setFloat64((arg0 >>> 0) + 8 * 1, isLikeNone(ret) ? 0 : ret, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, !isLikeNone(ret), true);
        },
        $3i: function(arg0, arg1) {
            const obj = arg1;
            const ret = typeof(obj) === 'string' ? obj : undefined;
            var ptr1 = isLikeNone(ret) ? 0 : passStringToWasm0(ret, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            var len1 = WASM_VECTOR_LEN;
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
        },
        $3c: function(arg0, arg1) {
            throw new Error(getStringFromWasm0(arg0, arg1));
        },
        $3m: function(arg0) {
            arg0._wbg_cb_unref();
        },
        $x: function() { return handleError(function (arg0, arg1, arg2, arg3, arg4) {
            arg0.addEventListener(getStringFromWasm0(arg1, arg2), arg3, arg4 !== 0);
        }, arguments); },
        $1w: function() { return handleError(function (arg0, arg1, arg2) {
            const ret = arg0.apply(arg1, arg2);
            return ret;
        }, arguments); },
        $s: function(arg0) {
            const ret = arg0.args;
            return ret;
        },
        $11: function(arg0) {
            const ret = arg0.argv;
            return ret;
        },
        $q: function(arg0) {
            const ret = arg0.at;
            return ret;
        },
        $f: function() { return handleError(function (arg0, arg1, arg2, arg3) {
            const ret = arg0.attach(arg1, arg2, arg3);
            return ret;
        }, arguments); },
        $g: function(arg0) {
            const ret = arg0.bodies();
            return ret;
        },
        $8: function(arg0) {
            const ret = arg0.body;
            return ret;
        },
        $2b: function(arg0) {
            const ret = arg0.bufferedAmount;
            return ret;
        },
        $2e: function() { return handleError(function (arg0, arg1) {
            const ret = arg0.call(arg1);
            return ret;
        }, arguments); },
        $1u: function() { return handleError(function (arg0, arg1, arg2) {
            const ret = arg0.call(arg1, arg2);
            return ret;
        }, arguments); },
        $1v: function() { return handleError(function (arg0, arg1, arg2, arg3) {
            const ret = arg0.call(arg1, arg2, arg3);
            return ret;
        }, arguments); },
        $2d: function() { return handleError(function (arg0) {
            arg0.close();
        }, arguments); },
        $18: function(arg0) {
            const ret = arg0.code;
            return ret;
        },
        $10: function() { return handleError(function (arg0, arg1, arg2) {
            const ret = arg0.compile(getStringFromWasm0(arg1, arg2));
            return ret;
        }, arguments); },
        $23: function() { return handleError(function (arg0, arg1) {
            const ret = Reflect.construct(arg0, arg1);
            return ret;
        }, arguments); },
        $w: function(arg0) {
            const ret = arg0.data;
            return ret;
        },
        $1j: function(arg0, arg1, arg2, arg3) {
            const ret = arg1.decode(getArrayU8FromWasm0(arg2, arg3));
            const ptr1 = passStringToWasm0(ret, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            const len1 = WASM_VECTOR_LEN;
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
        },
        $1t: function(arg0, arg1) {
            const ret = arg0.delete(arg1);
            return ret;
        },
        $1a: function(arg0) {
            const ret = arg0.depth;
            return ret;
        },
        $h: function(arg0) {
            arg0.detach();
        },
        $4: function(arg0) {
            arg0.dialogs();
        },
        $25: function(arg0) {
            arg0.disconnect();
        },
        $6: function(arg0) {
            const ret = arg0.dropped;
            return ret;
        },
        $a: function(arg0) {
            const ret = arg0.error;
            return ret;
        },
        $2o: function() { return handleError(function (arg0, arg1) {
            const ret = eval(getStringFromWasm0(arg0, arg1));
            return ret;
        }, arguments); },
        $u: function(arg0) {
            const ret = arg0.event;
            return ret;
        },
        $2x: function(arg0, arg1) {
            const ret = Symbol.for(getStringFromWasm0(arg0, arg1));
            return ret;
        },
        $1b: function(arg0) {
            const ret = arg0.full;
            return ret;
        },
        $2m: function(arg0) {
            const ret = arg0.getHours();
            return ret;
        },
        $2i: function(arg0) {
            const ret = arg0.getMinutes();
            return ret;
        },
        $2j: function(arg0) {
            const ret = arg0.getSeconds();
            return ret;
        },
        $34: function() { return handleError(function (arg0, arg1) {
            const ret = Reflect.get(arg0, arg1);
            return ret;
        }, arguments); },
        $1r: function(arg0, arg1) {
            const ret = arg0.get(arg1);
            return ret;
        },
        $1n: function(arg0, arg1) {
            const ret = arg0[arg1 >>> 0];
            return ret;
        },
        $1m: function(arg0, arg1) {
            const ret = arg0[arg1 >>> 0];
            return ret;
        },
        $35: function() { return handleError(function (arg0, arg1) {
            const ret = Reflect.has(arg0, arg1);
            return ret;
        }, arguments); },
        $2f: function(arg0) {
            let result;
            try {
                result = arg0 instanceof Error;
            } catch (_) {
                result = false;
            }
            const ret = result;
            return ret;
        },
        $1x: function(arg0) {
            let result;
            try {
                result = arg0 instanceof Map;
            } catch (_) {
                result = false;
            }
            const ret = result;
            return ret;
        },
        $1y: function(arg0) {
            let result;
            try {
                result = arg0 instanceof Promise;
            } catch (_) {
                result = false;
            }
            const ret = result;
            return ret;
        },
        $2t: function(arg0) {
            const ret = Array.isArray(arg0);
            return ret;
        },
        $2v: function(arg0, arg1) {
            const ret = Object.is(arg0, arg1);
            return ret;
        },
        $17: function(arg0) {
            const ret = arg0.job;
            return ret;
        },
        $1e: function(arg0) {
            const ret = arg0.json;
            return ret;
        },
        $20: function(arg0) {
            const ret = Object.keys(arg0);
            return ret;
        },
        $1d: function() { return handleError(function (arg0, arg1, arg2, arg3) {
            const ret = arg0.later(arg1, getArrayF64FromWasm0(arg2, arg3));
            return ret;
        }, arguments); },
        $1q: function(arg0) {
            const ret = arg0.length;
            return ret;
        },
        $3a: function(arg0) {
            const ret = arg0.length;
            return ret;
        },
        $p: function(arg0) {
            const ret = arg0.m;
            return ret;
        },
        $d: function(arg0) {
            const ret = arg0.message;
            return ret;
        },
        $12: function(arg0, arg1) {
            const ret = arg1.name;
            var ptr1 = isLikeNone(ret) ? 0 : passStringToWasm0(ret, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            var len1 = WASM_VECTOR_LEN;
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
        },
        $r: function(arg0) {
            const ret = arg0.net;
            return ret;
        },
        $2l: function() {
            const ret = new Date();
            return ret;
        },
        $1i: function() {
            const ret = new TextDecoder();
            return ret;
        },
        $2p: function() {
            const ret = new Array();
            return ret;
        },
        $3b: function(arg0, arg1) {
            const ret = new TypeError(getStringFromWasm0(arg0, arg1));
            return ret;
        },
        $1g: function() { return handleError(function (arg0, arg1) {
            const ret = new ReportingObserver(arg0, arg1);
            return ret;
        }, arguments); },
        $2h: function() {
            const ret = new Map();
            return ret;
        },
        $2u: function(arg0, arg1) {
            const ret = new Error(getStringFromWasm0(arg0, arg1));
            return ret;
        },
        $21: function(arg0, arg1) {
            try {
                var state0 = {a: arg0, b: arg1};
                var cb0 = (arg0, arg1) => {
                    const a = state0.a;
                    state0.a = 0;
                    try {
                        return $42(a, state0.b, arg0, arg1);
                    } finally {
                        state0.a = a;
                    }
                };
                const ret = new Promise(cb0);
                return ret;
            } finally {
                state0.a = 0;
            }
        },
        $2w: function() {
            const ret = new Object();
            return ret;
        },
        $2c: function() { return handleError(function (arg0, arg1) {
            const ret = new WebSocket(getStringFromWasm0(arg0, arg1));
            return ret;
        }, arguments); },
        $22: function(arg0, arg1) {
            try {
                var state0 = {a: arg0, b: arg1};
                var cb0 = (arg0, arg1) => {
                    const a = state0.a;
                    state0.a = 0;
                    try {
                        return $42(a, state0.b, arg0, arg1);
                    } finally {
                        state0.a = a;
                    }
                };
                const ret = new Promise(cb0);
                return ret;
            } finally {
                state0.a = 0;
            }
        },
        $t: function(arg0) {
            const ret = arg0.node;
            return ret;
        },
        $0: function() { return handleError(function () {
            const ret = performance.now();
            return ret;
        }, arguments); },
        $2k: function() {
            const ret = Date.now();
            return ret;
        },
        $1f: function() {
            const ret = performance.now();
            return ret;
        },
        $1k: function() { return handleError(function (arg0, arg1, arg2, arg3) {
            const ret = arg0.now(arg1, getArrayF64FromWasm0(arg2, arg3));
            return ret;
        }, arguments); },
        $2: function(arg0) {
            const ret = arg0.object;
            return ret;
        },
        $1h: function() { return handleError(function (arg0) {
            arg0.observe();
        }, arguments); },
        $2q: function(arg0) {
            const ret = Array.of(arg0);
            return ret;
        },
        $2s: function(arg0, arg1, arg2, arg3) {
            const ret = Array.of(arg0, arg1, arg2, arg3);
            return ret;
        },
        $2r: function(arg0, arg1) {
            const ret = Array.of(arg0, arg1);
            return ret;
        },
        $o: function(arg0) {
            const ret = arg0.originals;
            return ret;
        },
        $15: function() { return handleError(function (arg0) {
            const ret = JSON.parse(arg0);
            return ret;
        }, arguments); },
        $i: function(arg0) {
            const ret = arg0.person;
            return ret;
        },
        $m: function(arg0) {
            const ret = arg0.pictures;
            return ret;
        },
        $14: function(arg0, arg1) {
            const ret = arg1.pid;
            getDataViewMemory0().setFloat64((arg0 >>> 0) + 8 * 1, isLikeNone(ret) ? 0 : ret, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, !isLikeNone(ret), true);
        },
        $1o: function(arg0, arg1) {
            const ret = arg0.push(arg1);
            return ret;
        },
        $38: function(arg0) {
            const ret = arg0.queueMicrotask;
            return ret;
        },
        $37: function(arg0) {
            queueMicrotask(arg0);
        },
        $2n: function() {
            const ret = Math.random();
            return ret;
        },
        $1: function(arg0) {
            const ret = arg0.realm;
            return ret;
        },
        $b: function(arg0) {
            const ret = arg0.reason;
            return ret;
        },
        $7: function(arg0) {
            const ret = arg0.records;
            return ret;
        },
        $32: function(arg0) {
            const ret = Promise.reject(arg0);
            return ret;
        },
        $24: function() { return handleError(function (arg0, arg1, arg2, arg3, arg4) {
            arg0.removeEventListener(getStringFromWasm0(arg1, arg2), arg3, arg4 !== 0);
        }, arguments); },
        $3: function(arg0) {
            arg0.remove();
        },
        $n: function() { return handleError(function (arg0, arg1, arg2, arg3) {
            const ret = arg1.requests(arg2 !== 0, arg3);
            const ptr1 = passStringToWasm0(ret, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            const len1 = WASM_VECTOR_LEN;
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
        }, arguments); },
        $33: function(arg0) {
            const ret = Promise.resolve(arg0);
            return ret;
        },
        $29: function() { return handleError(function (arg0, arg1, arg2) {
            arg0.send(getStringFromWasm0(arg1, arg2));
        }, arguments); },
        $1l: function(arg0, arg1) {
            const ret = globalThis.setTimeout(arg0, arg1);
            return ret;
        },
        $36: function() { return handleError(function (arg0, arg1, arg2) {
            const ret = Reflect.set(arg0, arg1, arg2);
            return ret;
        }, arguments); },
        $1s: function(arg0, arg1, arg2) {
            const ret = arg0.set(arg1, arg2);
            return ret;
        },
        $27: function(arg0, arg1) {
            arg0.onclose = arg1;
        },
        $28: function(arg0, arg1) {
            arg0.onerror = arg1;
        },
        $2a: function(arg0, arg1) {
            arg0.onmessage = arg1;
        },
        $26: function(arg0, arg1) {
            arg0.onopen = arg1;
        },
        $k: function() { return handleError(function (arg0) {
            const ret = arg0.settled();
            return ret;
        }, arguments); },
        $1p: function(arg0, arg1, arg2) {
            const ret = arg0.slice(arg1 >>> 0, arg2 >>> 0);
            return ret;
        },
        $39: function(arg0, arg1, arg2) {
            const ret = arg0.slice(arg1 >>> 0, arg2 >>> 0);
            return ret;
        },
        $z: function() { return handleError(function (arg0, arg1, arg2) {
            const ret = arg0.socket(getStringFromWasm0(arg1, arg2));
            return ret;
        }, arguments); },
        $e: function(arg0, arg1, arg2) {
            arg0.stage(arg1, arg2 >>> 0);
        },
        $2y: function() {
            const ret = typeof globalThis === 'undefined' ? undefined : globalThis;
            return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
        },
        $30: function() {
            const ret = typeof global === 'undefined' ? undefined : global;
            return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
        },
        $2z: function() {
            const ret = typeof self === 'undefined' ? undefined : self;
            return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
        },
        $31: function() {
            const ret = typeof window === 'undefined' ? undefined : window;
            return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
        },
        $c: function(arg0) {
            const ret = arg0.target;
            return ret;
        },
        $1c: function(arg0, arg1) {
            const ret = arg1.text;
            const ptr1 = passStringToWasm0(ret, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            const len1 = WASM_VECTOR_LEN;
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
        },
        $1z: function(arg0, arg1, arg2) {
            const ret = arg0.then(arg1, arg2);
            return ret;
        },
        $2g: function(arg0, arg1) {
            const ret = arg0.then(arg1);
            return ret;
        },
        $19: function(arg0) {
            const ret = arg0.timeout_ms;
            return ret;
        },
        $l: function(arg0) {
            const ret = arg0.toolkit;
            return ret;
        },
        $v: function(arg0) {
            const ret = arg0.trace;
            return ret;
        },
        $9: function(arg0) {
            const ret = arg0.type;
            return ret;
        },
        $16: function(arg0) {
            const ret = arg0.type;
            return ret;
        },
        $y: function() { return handleError(function (arg0) {
            arg0.unref();
        }, arguments); },
        $13: function(arg0, arg1) {
            const ret = arg1.url;
            var ptr1 = isLikeNone(ret) ? 0 : passStringToWasm0(ret, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            var len1 = WASM_VECTOR_LEN;
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
        },
        $j: function(arg0) {
            const ret = arg0.values;
            return ret;
        },
        $5: function(arg0, arg1, arg2) {
            arg0.welcomed(getStringFromWasm0(arg1, arg2));
        },
        $3o: function(arg0, arg1) {
            // Cast intrinsic for `Closure(Closure { owned: true, function: Function { arguments: [Externref, Externref, Externref], shim_idx: 7, ret: Result(Externref), inner_ret: Some(Result(Externref)) }, mutable: true }) -> Externref`.
            const ret = makeMutClosure(arg0, arg1, $40);
            return ret;
        },
        $3p: function(arg0, arg1) {
            // Cast intrinsic for `Closure(Closure { owned: true, function: Function { arguments: [Externref, Externref], shim_idx: 115, ret: Unit, inner_ret: Some(Unit) }, mutable: true }) -> Externref`.
            const ret = makeMutClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__h19bdaa6738d82ae4_6);
            return ret;
        },
        $3q: function(arg0, arg1) {
            // Cast intrinsic for `Closure(Closure { owned: true, function: Function { arguments: [Externref, NamedExternref("Array<any>"), Externref, Externref], shim_idx: 10, ret: Unit, inner_ret: Some(Unit) }, mutable: true }) -> Externref`.
            const ret = makeMutClosure(arg0, arg1, $3z);
            return ret;
        },
        $3r: function(arg0, arg1) {
            // Cast intrinsic for `Closure(Closure { owned: true, function: Function { arguments: [Externref], shim_idx: 106, ret: Result(Unit), inner_ret: Some(Result(Unit)) }, mutable: true }) -> Externref`.
            const ret = makeMutClosure(arg0, arg1, $44);
            return ret;
        },
        $3s: function(arg0, arg1) {
            // Cast intrinsic for `Closure(Closure { owned: true, function: Function { arguments: [Externref], shim_idx: 9, ret: Unit, inner_ret: Some(Unit) }, mutable: true }) -> Externref`.
            const ret = makeMutClosure(arg0, arg1, $46);
            return ret;
        },
        $3t: function(arg0, arg1) {
            // Cast intrinsic for `Closure(Closure { owned: true, function: Function { arguments: [String], shim_idx: 11, ret: String, inner_ret: Some(String) }, mutable: false }) -> Externref`.
            const ret = makeClosure(arg0, arg1, $41);
            return ret;
        },
        $3u: function(arg0, arg1) {
            // Cast intrinsic for `Closure(Closure { owned: true, function: Function { arguments: [String], shim_idx: 6, ret: Unit, inner_ret: Some(Unit) }, mutable: true }) -> Externref`.
            const ret = makeMutClosure(arg0, arg1, $45);
            return ret;
        },
        $3v: function(arg0, arg1) {
            // Cast intrinsic for `Closure(Closure { owned: true, function: Function { arguments: [String], shim_idx: 8, ret: Unit, inner_ret: Some(Unit) }, mutable: false }) -> Externref`.
            const ret = makeClosure(arg0, arg1, $43);
            return ret;
        },
        $3w: function(arg0, arg1) {
            // Cast intrinsic for `Closure(Closure { owned: true, function: Function { arguments: [], shim_idx: 5, ret: Unit, inner_ret: Some(Unit) }, mutable: true }) -> Externref`.
            const ret = makeMutClosure(arg0, arg1, $47);
            return ret;
        },
        $3x: function(arg0) {
            // Cast intrinsic for `F64 -> Externref`.
            const ret = arg0;
            return ret;
        },
        $3y: function(arg0, arg1) {
            // Cast intrinsic for `Ref(String) -> Externref`.
            const ret = getStringFromWasm0(arg0, arg1);
            return ret;
        },
        $3n: function() {
            const table = wasm.__wbindgen_externrefs;
            table.set(0, undefined);
            table.set(1024, undefined);
            table.set(1025, null);
            table.set(1026, true);
            table.set(1027, false);
        },
    };
    return {
        __proto__: null,
        "a": import0,
    };
}

function $47(arg0, arg1) {
    wasm.$47(arg0, arg1);
}

function $46(arg0, arg1, arg2) {
    wasm.$46(arg0, arg1, arg2);
}

function $44(arg0, arg1, arg2) {
    const ret = wasm.$44(arg0, arg1, arg2);
    if (ret[1]) {
        throw takeFromExternrefTable0(ret[0]);
    }
}

function $42(arg0, arg1, arg2, arg3) {
    wasm.$42(arg0, arg1, arg2, arg3);
}

function wasm_bindgen__convert__closures_____invoke__h19bdaa6738d82ae4_6(arg0, arg1, arg2, arg3) {
    wasm.wasm_bindgen__convert__closures_____invoke__h19bdaa6738d82ae4_6(arg0, arg1, arg2, arg3);
}

function $40(arg0, arg1, arg2, arg3, arg4) {
    const ret = wasm.$40(arg0, arg1, arg2, arg3, arg4);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

function $3z(arg0, arg1, arg2, arg3, arg4, arg5) {
    wasm.$3z(arg0, arg1, arg2, arg3, arg4, arg5);
}

function $45(arg0, arg1, arg2) {
    const ptr0 = passStringToWasm0(arg2, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    wasm.$45(arg0, arg1, ptr0, len0);
}

function $43(arg0, arg1, arg2) {
    const ptr0 = passStringToWasm0(arg2, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    wasm.$43(arg0, arg1, ptr0, len0);
}

function $41(arg0, arg1, arg2) {
    let deferred2_0;
    let deferred2_1;
    try {
        const ptr0 = passStringToWasm0(arg2, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.$41(arg0, arg1, ptr0, len0);
        deferred2_0 = ret[0];
        deferred2_1 = ret[1];
        return getStringFromWasm0(ret[0], ret[1]);
    } finally {
        wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
    }
}

function addToExternrefTable0(obj) {
    const idx = wasm.__externref_table_alloc();
    wasm.__wbindgen_externrefs.set(idx, obj);
    return idx;
}

const CLOSURE_DTORS = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(state => wasm.__wbindgen_destroy_closure(state.a, state.b));

function getArrayF64FromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return getFloat64ArrayMemory0().subarray(ptr / 8, ptr / 8 + len);
}

function getArrayU8FromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return getUint8ArrayMemory0().subarray(ptr / 1, ptr / 1 + len);
}

let cachedDataViewMemory0 = null;
function getDataViewMemory0() {
    if (cachedDataViewMemory0 === null || cachedDataViewMemory0.buffer.detached === true || (cachedDataViewMemory0.buffer.detached === undefined && cachedDataViewMemory0.buffer !== wasm.memory.buffer)) {
        cachedDataViewMemory0 = new DataView(wasm.memory.buffer);
    }
    return cachedDataViewMemory0;
}

let cachedFloat64ArrayMemory0 = null;
function getFloat64ArrayMemory0() {
    if (cachedFloat64ArrayMemory0 === null || cachedFloat64ArrayMemory0.byteLength === 0) {
        cachedFloat64ArrayMemory0 = new Float64Array(wasm.memory.buffer);
    }
    return cachedFloat64ArrayMemory0;
}

function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return decodeText(getUint8ArrayMemory0().subarray(ptr, ptr + len));
}

let cachedUint8ArrayMemory0 = null;
function getUint8ArrayMemory0() {
    if (cachedUint8ArrayMemory0 === null || cachedUint8ArrayMemory0.byteLength === 0) {
        cachedUint8ArrayMemory0 = new Uint8Array(wasm.memory.buffer);
    }
    return cachedUint8ArrayMemory0;
}

function handleError(f, args) {
    try {
        return f.apply(this, args);
    } catch (e) {
        const idx = addToExternrefTable0(e);
        wasm.__wbindgen_exn_store(idx);
    }
}

function isLikeNone(x) {
    return x === undefined || x === null;
}

function makeClosure(arg0, arg1, f) {
    const state = { a: arg0, b: arg1, cnt: 1 };
    const real = (...args) => {

        // First up with a closure we increment the internal reference
        // count. This ensures that the Rust closure environment won't
        // be deallocated while we're invoking it.
        state.cnt++;
        try {
            return f(state.a, state.b, ...args);
        } finally {
            real._wbg_cb_unref();
        }
    };
    real._wbg_cb_unref = () => {
        if (--state.cnt === 0) {
            wasm.__wbindgen_destroy_closure(state.a, state.b);
            state.a = 0;
            CLOSURE_DTORS.unregister(state);
        }
    };
    CLOSURE_DTORS.register(real, state, state);
    return real;
}

function makeMutClosure(arg0, arg1, f) {
    const state = { a: arg0, b: arg1, cnt: 1 };
    const real = (...args) => {

        // First up with a closure we increment the internal reference
        // count. This ensures that the Rust closure environment won't
        // be deallocated while we're invoking it.
        state.cnt++;
        const a = state.a;
        state.a = 0;
        try {
            return f(a, state.b, ...args);
        } finally {
            state.a = a;
            real._wbg_cb_unref();
        }
    };
    real._wbg_cb_unref = () => {
        if (--state.cnt === 0) {
            wasm.__wbindgen_destroy_closure(state.a, state.b);
            state.a = 0;
            CLOSURE_DTORS.unregister(state);
        }
    };
    CLOSURE_DTORS.register(real, state, state);
    return real;
}

function passStringToWasm0(arg, malloc, realloc) {
    if (realloc === undefined) {
        const buf = cachedTextEncoder.encode(arg);
        const ptr = malloc(buf.length, 1) >>> 0;
        getUint8ArrayMemory0().subarray(ptr, ptr + buf.length).set(buf);
        WASM_VECTOR_LEN = buf.length;
        return ptr;
    }

    let len = arg.length;
    let ptr = malloc(len, 1) >>> 0;

    const mem = getUint8ArrayMemory0();

    let offset = 0;

    for (; offset < len; offset++) {
        const code = arg.charCodeAt(offset);
        if (code > 0x7F) break;
        mem[ptr + offset] = code;
    }
    if (offset !== len) {
        if (offset !== 0) {
            arg = arg.slice(offset);
        }
        ptr = realloc(ptr, len, len = offset + arg.length * 3, 1) >>> 0;
        const view = getUint8ArrayMemory0().subarray(ptr + offset, ptr + len);
        const ret = cachedTextEncoder.encodeInto(arg, view);

        offset += ret.written;
        ptr = realloc(ptr, len, offset, 1) >>> 0;
    }

    WASM_VECTOR_LEN = offset;
    return ptr;
}

function takeFromExternrefTable0(idx) {
    const value = wasm.__wbindgen_externrefs.get(idx);
    wasm.__externref_table_dealloc(idx);
    return value;
}

let cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
cachedTextDecoder.decode();
const MAX_SAFARI_DECODE_BYTES = 2146435072;
let numBytesDecoded = 0;
function decodeText(bytes) {
    numBytesDecoded += bytes.length;
    if (numBytesDecoded >= MAX_SAFARI_DECODE_BYTES) {
        cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
        cachedTextDecoder.decode();
        numBytesDecoded = bytes.length;
    }
    return cachedTextDecoder.decode(bytes);
}

const cachedTextEncoder = new TextEncoder();

if (!('encodeInto' in cachedTextEncoder)) {
    cachedTextEncoder.encodeInto = function (arg, view) {
        const buf = cachedTextEncoder.encode(arg);
        view.set(buf);
        return {
            read: arg.length,
            written: buf.length
        };
    };
}

let WASM_VECTOR_LEN = 0;

let wasmModule, wasmInstance, wasm;
function __wbg_finalize_init(instance, module) {
    wasmInstance = instance;
    wasm = instance.exports;
    wasmModule = module;
    cachedDataViewMemory0 = null;
    cachedFloat64ArrayMemory0 = null;
    cachedUint8ArrayMemory0 = null;
    wasm.__wbindgen_start();
    return wasm;
}

async function __wbg_load(module, imports) {
    if (typeof Response === 'function' && module instanceof Response) {
        if (!module.ok) {
            throw new Error(`failed to fetch Wasm: ${module.status} ${module.statusText} fetching '${module.url}'`);
        }

        if (typeof WebAssembly.instantiateStreaming === 'function') {
            try {
                return await WebAssembly.instantiateStreaming(module, imports);
            } catch (e) {
                const validResponse = expectedResponseType(module.type);

                if (validResponse && module.headers.get('Content-Type') !== 'application/wasm') {
                    console.warn("`WebAssembly.instantiateStreaming` failed because your server does not serve Wasm with `application/wasm` MIME type. Falling back to `WebAssembly.instantiate` which is slower. Original error:\n", e);

                } else { throw e; }
            }
        }

        const bytes = await module.arrayBuffer();
        return await WebAssembly.instantiate(bytes, imports);
    } else {
        const instance = await WebAssembly.instantiate(module, imports);

        if (instance instanceof WebAssembly.Instance) {
            return { instance, module };
        } else {
            return instance;
        }
    }

    function expectedResponseType(type) {
        switch (type) {
            case 'basic': case 'cors': case 'default': return true;
        }
        return false;
    }
}

function initSync(module) {
    if (wasm !== undefined) return wasm;


    if (module !== undefined) {
        if (Object.getPrototypeOf(module) === Object.prototype) {
            ({module} = module)
        } else {
            console.warn('using deprecated parameters for `initSync()`; pass a single object instead')
        }
    }

    const imports = __wbg_get_imports();
    if (!(module instanceof WebAssembly.Module)) {
        module = new WebAssembly.Module(module);
    }
    const instance = new WebAssembly.Instance(module, imports);
    return __wbg_finalize_init(instance, module);
}

let __wbg_init_promise;
async function __wbg_init(module_or_path) {
    if (wasm !== undefined) return wasm;
    if (__wbg_init_promise === undefined) {
        __wbg_init_promise = __wbg_init_once(module_or_path);
        __wbg_init_promise.catch(() => { __wbg_init_promise = undefined; });
    }
    return __wbg_init_promise;
}

async function __wbg_init_once(module_or_path) {

    if (module_or_path !== undefined) {
        if (Object.getPrototypeOf(module_or_path) === Object.prototype) {
            ({module_or_path} = module_or_path)
        } else {
            console.warn('using deprecated parameters for the initialization function; pass a single object instead')
        }
    }

    if (module_or_path === undefined) {
        module_or_path = new URL('daebug_adapter_bg.wasm', import.meta.url);
    }
    const imports = __wbg_get_imports();

    if (typeof module_or_path === 'string' || (typeof Request === 'function' && module_or_path instanceof Request) || (typeof URL === 'function' && module_or_path instanceof URL)) {
        module_or_path = fetch(module_or_path);
    }

    const { instance, module } = await __wbg_load(await module_or_path, imports);

    return __wbg_finalize_init(instance, module);
}

export { initSync, __wbg_init as default };
