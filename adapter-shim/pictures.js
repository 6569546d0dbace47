// pictures.js: the pictures of a block, in the realm's own JavaScript (the
// browser encodes; no image code, nor this source, goes into the .wasm).
// The hub splices it into both loaders after hooks.js (at the same marker),
// and `hooks()` hands `pictures` to the adapter (`Hooks::pictures` in
// adapter-wasm/src/bind.rs), which calls it once and then what it returns:
//   kind(x)            -> a label when x is a picture, else null
//   encode(x, name, max) -> Promise<record>   (daebug.image)
//   snapshot(el, max)  -> Promise<record>     (daebug.snapshot, pages)
//   copy(x, max)       -> Promise<record>     (the console's copy: x as text)
//   describe(record)   -> what the block's promise resolves to
// A record is { label, mime, width, height, bytes, data? }: data is the
// encoded bytes in base64, left out when bytes > max (refused).
// Everything that reads pixels starts at once, in the caller's task: a
// WebGL canvas without preserveDrawingBuffer is only readable until the
// frame is presented.
function pictures() {
  const g = globalThis;
  const is = (x, name) => typeof g[name] === "function" && x instanceof g[name];
  const fail = (m) => { throw new TypeError("daebug.image: " + m); };

  function kind(x) {
    if (is(x, "HTMLCanvasElement") || is(x, "OffscreenCanvas")) return "canvas";
    if (is(x, "ImageBitmap")) return "bitmap";
    if (is(x, "ImageData")) return "imagedata";
    if (is(x, "HTMLImageElement")) return "image";
    if (is(x, "SVGSVGElement")) return "svg";
    if (is(x, "Blob") && /^image\//i.test(x.type)) return "blob";
    return null;
  }

  function canvas(w, h) {
    if (typeof g.OffscreenCanvas === "function") return new g.OffscreenCanvas(w, h);
    const c = g.document.createElement("canvas");
    c.width = w;
    c.height = h;
    return c;
  }

  // A canvas's pixels as a PNG Blob; the snapshot is taken now.
  function png(c) {
    try {
      if (typeof c.convertToBlob === "function") return c.convertToBlob({ type: "image/png" });
      return new Promise((ok, no) =>
        c.toBlob((b) => (b ? ok(b) : no(new Error("daebug.image: the canvas gave no image (is it 0×0?)"))), "image/png"));
    } catch (e) {
      if (e && e.name === "SecurityError") {
        throw new Error("daebug.image: the browser will not let this canvas be read: it holds pixels from another origin loaded without CORS");
      }
      throw e;
    }
  }

  function drawn(source, w, h) {
    if (!(w > 0 && h > 0)) fail("the picture has no size (" + w + "×" + h + ")");
    const c = canvas(w, h);
    c.getContext("2d").drawImage(source, 0, 0, w, h);
    return png(c);
  }

  async function svgImage(text) {
    if (typeof g.Image !== "function") throw new Error("daebug: drawing SVG needs a page (a worker has no Image)");
    const img = new g.Image();
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
    await img.decode();
    return img;
  }

  async function base64(blob) {
    const url = await new Promise((ok, no) => {
      const r = new g.FileReader();
      r.onload = () => ok(r.result);
      r.onerror = () => no(r.error);
      r.readAsDataURL(blob);
    });
    return url.slice(url.indexOf(",") + 1);
  }

  async function record(label, blob, w, h, max) {
    blob = await blob;
    const r = { label, mime: blob.type || "image/png", width: w, height: h, bytes: blob.size };
    if (blob.size <= max) r.data = await base64(blob);
    return r;
  }

  async function fromBlob(blob, label, max) {
    if (blob.size > max) return { label, mime: blob.type, width: 0, height: 0, bytes: blob.size };
    let w = 0, h = 0;
    try {
      const bmp = await g.createImageBitmap(blob);
      [w, h] = [bmp.width, bmp.height];
      bmp.close();
    } catch (e) {
      if (!/svg/i.test(blob.type)) throw new Error("daebug.image: the " + blob.type + " Blob does not decode as an image: " + e.message);
      if (g.document) {
        const img = await svgImage(await blob.text());
        [w, h] = [img.naturalWidth, img.naturalHeight];
      }
    }
    return record(label, blob, w, h, max);
  }

  function svgText(el) {
    const copy = el.cloneNode(true);
    copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
    return new g.XMLSerializer().serializeToString(copy);
  }

  function encode(x, name, max) {
    const k = kind(x);
    const label = typeof name === "string" && name ? name : k === "blob" ? "image" : k;
    if (k === "canvas") return record(label, png(x), x.width, x.height, max);
    if (k === "bitmap") return record(label, drawn(x, x.width, x.height), x.width, x.height, max);
    if (k === "imagedata") {
      const c = canvas(x.width, x.height);
      c.getContext("2d").putImageData(x, 0, 0);
      return record(label, png(c), x.width, x.height, max);
    }
    if (k === "image") {
      return (async () => {
        if (!x.complete || !x.naturalWidth) await x.decode();
        const [w, h] = [x.naturalWidth, x.naturalHeight];
        return record(label, drawn(x, w, h), w, h, max);
      })();
    }
    if (k === "svg") {
      const r = x.getBoundingClientRect();
      const [w, h] = [Math.ceil(r.width), Math.ceil(r.height)];
      const text = svgText(x);
      return svgImage(text).then((img) => record(label, drawn(img, w, h), w, h, max));
    }
    if (k === "blob") return fromBlob(x, label, max);
    if (typeof x === "string" && /^data:image\//i.test(x)) {
      return fetch(x).then((r) => r.blob()).then((b) => fromBlob(b, typeof name === "string" && name ? name : "image", max));
    }
    fail("pass a canvas, OffscreenCanvas, ImageBitmap, ImageData, an image Blob or File, an <img> or <svg> element, or a data:image/… URL");
  }

  // --- snapshot: the DOM drawn through SVG foreignObject -------------------

  const SKIP = new Set(["SCRIPT", "NOSCRIPT", "TEMPLATE", "LINK", "META", "STYLE"]);

  // A copy of `src` with every element's computed style inlined; same-origin
  // images become data URLs (collected in `waits`), canvases their pixels.
  function styled(src, waits) {
    if (src.nodeType === 3) return src.cloneNode(false);
    if (src.nodeType !== 1 || SKIP.has(src.tagName)) return null;
    let copy;
    if (is(src, "HTMLCanvasElement")) {
      copy = g.document.createElement("img");
      try { copy.src = src.toDataURL(); } catch (_) { /* a tainted canvas stays blank */ }
    } else {
      copy = src.cloneNode(false);
    }
    const cs = g.getComputedStyle(src);
    let css = "";
    for (let i = 0; i < cs.length; i++) {
      const p = cs[i];
      css += p + ":" + cs.getPropertyValue(p) + ";";
    }
    copy.setAttribute("style", css);
    if (is(src, "HTMLInputElement") || is(src, "HTMLTextAreaElement")) copy.setAttribute("value", src.value);
    if (is(src, "HTMLImageElement") && src.currentSrc) {
      const url = new URL(src.currentSrc, g.location.href);
      if (url.origin === g.location.origin || url.protocol === "data:") {
        waits.push(fetch(url).then((r) => r.blob()).then(base64Url).then((u) => copy.setAttribute("src", u), () => {}));
      }
      copy.removeAttribute("srcset");
    }
    for (const child of src.childNodes) {
      const c = styled(child, waits);
      if (c) copy.appendChild(c);
    }
    return copy;
  }

  async function base64Url(blob) {
    return "data:" + (blob.type || "application/octet-stream") + ";base64," + (await base64(blob));
  }

  async function snapshot(el, max) {
    if (!g.document) {
      throw new Error("daebug.snapshot() draws a page's DOM, and a worker has none: take the picture in its page, or pass an OffscreenCanvas to daebug.image()");
    }
    el = el == null ? g.document.body : el;
    if (!is(el, "Element")) throw new TypeError("daebug.snapshot: pass an element (the default is document.body)");
    const r = el.getBoundingClientRect();
    const [w, h] = [Math.ceil(r.width), Math.ceil(r.height)];
    if (!(w > 0 && h > 0)) throw new Error("daebug.snapshot: the element has no size (" + r.width + "×" + r.height + "); is it displayed?");
    const waits = [];
    const copy = styled(el, waits);
    copy.style.margin = "0";
    await Promise.all(waits);
    const xml = new g.XMLSerializer().serializeToString(copy);
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="' + w + '" height="' + h + '">' +
      '<foreignObject x="0" y="0" width="100%" height="100%">' + xml + "</foreignObject></svg>";
    const img = await svgImage(svg);
    return record("snapshot", drawn(img, w, h), w, h, max);
  }

  // The console's copy(x): x whole, as the console copies it (a string as it
  // is, an element's HTML, anything else as JSON where it can be, else its
  // String), saved as a file of the log's archive.
  function copy(x, max) {
    let text, mime = "text/plain", what;
    if (typeof x === "string") [text, what] = [x, "text"];
    else if (is(x, "Element")) [text, what] = [x.outerHTML, "HTML"];
    else {
      try { text = JSON.stringify(x, null, 2); } catch (_) { text = undefined; }
      if (text === undefined) [text, what] = [String(x), "text"];
      else [mime, what] = ["application/json", "JSON"];
    }
    const bytes = new g.TextEncoder().encode(text);
    const label = "copy, " + what + ", " + bytes.length + " bytes";
    const r = { label, mime, width: 0, height: 0, bytes: bytes.length };
    if (bytes.length <= max) {
      let s = "";
      for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
      r.data = g.btoa(s);
    }
    return Promise.resolve(r);
  }

  function describe(r, note) {
    const d = { label: r.label, type: r.mime, width: r.width, height: r.height, bytes: r.bytes };
    if (!("data" in r)) d.refused = note;
    return d;
  }

  return { kind, encode, snapshot, copy, describe };
}
