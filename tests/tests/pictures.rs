//! Pictures from a realm (docs/log-format.md, "Images"), with the real hub
//! and headless Chromium: `daebug.image` on a 2D canvas, a WebGL canvas
//! (with and without `preserveDrawingBuffer`), an `<img>` the hub served,
//! an `<svg>`, a data URL, a block whose value is a canvas, a Blob over
//! 16 MiB; in a module worker an `OffscreenCanvas`, a Blob of its own
//! type, an `ImageBitmap` and `ImageData`; `daebug.snapshot` of a styled
//! element (and its error in a worker); through MCP, `eval` returns the
//! pictures as image content. Every saved file is decoded and its size and
//! pixels checked.

mod support;

use std::path::Path;

use support::pixels::decode;
use support::{Log, World, Write};

const PAGE: &str = "<!doctype html><html><head><title>Paint</title></head><body>\
    <img id=dot src=/dot.png>\
    <div id=card style=\"width:200px;height:80px;background:rgb(255,0,0);color:#fff;font:16px sans-serif;border-left:20px solid rgb(0,0,255)\">Hello</div>\
    </body></html>";

/// The last block the agent wrote in `text`, and its reply.
fn last_exchange(text: &str) -> &str {
    &text[text.rfind("> **agent** to ").expect("a reply")..]
}

/// Appends one block and returns the reply it got.
fn ask(log: &Log, code: &str) -> String {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    last_exchange(&text).to_string()
}

/// The picture lines of a reply: (alt text, path relative to `debug/`).
fn pictures(reply: &str) -> Vec<(String, String)> {
    reply
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("![")?;
            let (alt, path) = rest.split_once("](")?;
            Some((alt.to_string(), path.strip_suffix(')')?.to_string()))
        })
        .collect()
}

/// The one picture of a reply: its line's alt text and its file's bytes.
fn the_picture(root: &Path, reply: &str) -> (String, String, Vec<u8>) {
    let found = pictures(reply);
    assert_eq!(found.len(), 1, "one picture line in:\n{reply}");
    let (alt, path) = found.into_iter().next().unwrap();
    let bytes = std::fs::read(root.join("debug").join(&path))
        .unwrap_or_else(|e| panic!("{path}: {e}\n{reply}"));
    (alt, path, bytes)
}

/// A 4×3 PNG: red on the left half, green on the right.
fn dot_png() -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, 4, 3);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().unwrap();
    let px: Vec<u8> = (0..12)
        .flat_map(|i| match i % 4 < 2 {
            true => [255, 0, 0, 255],
            false => [0, 255, 0, 255],
        })
        .collect();
    w.write_image_data(&px).unwrap();
    w.finish().unwrap();
    out
}

fn world() -> World {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    std::fs::write(world.root.path().join("dot.png"), dot_png()).unwrap();
    world
}

/// Draws a 300×150 canvas: red on its left 100 columns, blue elsewhere.
const CANVAS: &str = "const c = document.createElement('canvas');\n\
    const x = c.getContext('2d');\n\
    x.fillStyle = 'rgb(0,0,255)'; x.fillRect(0, 0, 300, 150);\n\
    x.fillStyle = 'rgb(255,0,0)'; x.fillRect(0, 0, 100, 150);\n";

#[test]
fn a_2d_canvas_is_saved_as_a_png_with_its_pixels_and_named() {
    let world = world();
    let root = world.root.path();
    let log = world.log("paint-");

    let reply = ask(&log, &format!("{CANVAS}await daebug.image(c)"));
    let (alt, path, bytes) = the_picture(root, &reply);
    assert_eq!(alt, "canvas 300×150");
    assert!(
        path.starts_with(&format!("archive/{}-", log.stem)) && path.ends_with(".png"),
        "{path}"
    );
    // The promise says what was sent.
    assert!(
        reply.contains("\"label\": \"canvas\"") || reply.contains("\"label\":\"canvas\""),
        "{reply}"
    );
    let px = decode(&bytes);
    assert_eq!((px.width, px.height), (300, 150));
    assert_eq!(px.at(10, 10), [255, 0, 0, 255]);
    assert_eq!(px.at(200, 100), [0, 0, 255, 255]);

    // Not awaited, named: the reply still has it, under its name, in a
    // file of its own.
    let reply = ask(
        &log,
        &format!("{CANVAS}daebug.image(c, {{ name: 'chart](x)' }}); 1"),
    );
    let (alt, second, _) = the_picture(root, &reply);
    assert_eq!(alt, "chart__x_ 300×150");
    assert_ne!(second, path);

    // A value that is a canvas shows its picture too.
    let reply = ask(&log, &format!("{CANVAS}c"));
    let (alt, _, bytes) = the_picture(root, &reply);
    assert_eq!(alt, "canvas 300×150");
    assert_eq!(decode(&bytes).at(10, 10), [255, 0, 0, 255]);
    assert!(
        reply.contains("<canvas>"),
        "the value is shown as well:\n{reply}"
    );
}

#[test]
fn an_img_an_svg_and_a_data_url() {
    let world = world();
    let root = world.root.path();
    let log = world.log("paint-");

    // Same-origin, served by the hub: its natural size and pixels.
    let reply = ask(&log, "await daebug.image(document.querySelector('#dot'))");
    let (alt, _, bytes) = the_picture(root, &reply);
    assert_eq!(alt, "image 4×3");
    let px = decode(&bytes);
    assert_eq!((px.width, px.height), (4, 3));
    assert_eq!(px.at(0, 0), [255, 0, 0, 255]);
    assert_eq!(px.at(3, 2), [0, 255, 0, 255]);

    let reply = ask(
        &log,
        "document.body.insertAdjacentHTML('beforeend', '<svg id=s width=40 height=20 xmlns=\"http://www.w3.org/2000/svg\"><rect width=40 height=20 fill=\"rgb(0,255,0)\"/></svg>');\n\
         await daebug.image(document.querySelector('#s'))",
    );
    let (alt, _, bytes) = the_picture(root, &reply);
    assert_eq!(alt, "svg 40×20");
    assert_eq!(decode(&bytes).at(20, 10), [0, 255, 0, 255]);

    let reply = ask(
        &log,
        &format!("{CANVAS}await daebug.image(c.toDataURL(), {{ name: 'from a URL' }})"),
    );
    let (alt, _, bytes) = the_picture(root, &reply);
    assert_eq!(alt, "from a URL 300×150");
    assert_eq!(decode(&bytes).at(200, 10), [0, 0, 255, 255]);

    // Not a picture: a clear error, nothing saved.
    let reply = ask(&log, "daebug.image({})");
    assert!(
        reply.contains("TypeError: daebug.image: pass a canvas"),
        "{reply}"
    );
    assert!(pictures(&reply).is_empty());
}

#[test]
fn webgl_reads_back_in_the_drawing_task_and_after_it_only_with_preserve_drawing_buffer() {
    let world = world();
    let root = world.root.path();
    let log = world.log("paint-");
    let green = |preserve: bool, wait: bool| {
        format!(
            "const c = document.createElement('canvas'); c.width = 64; c.height = 32;\n\
             document.body.append(c);\n\
             const gl = c.getContext('webgl', {{ preserveDrawingBuffer: {preserve} }});\n\
             gl.clearColor(0, 1, 0, 1); gl.clear(gl.COLOR_BUFFER_BIT);\n\
             {}await daebug.image(c)",
            if wait {
                // Two frames: the drawing buffer is presented and cleared.
                "await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));\n"
            } else {
                ""
            }
        )
    };
    let pixel = |code: String| {
        let reply = ask(&log, &code);
        let (alt, _, bytes) = the_picture(root, &reply);
        assert_eq!(alt, "canvas 64×32");
        decode(&bytes).at(5, 5)
    };
    assert_eq!(pixel(green(false, false)), [0, 255, 0, 255], "same task");
    assert_eq!(pixel(green(true, true)), [0, 255, 0, 255], "preserved");
    // What headless Chromium does (docs/log-format.md says so): after the
    // frame, a canvas without preserveDrawingBuffer reads back cleared.
    assert_eq!(pixel(green(false, true)), [0, 0, 0, 0], "after the frame");
}

#[test]
fn snapshot_draws_a_styled_element_at_its_size() {
    let world = world();
    let root = world.root.path();
    let log = world.log("paint-");
    let reply = ask(
        &log,
        "await daebug.snapshot(document.querySelector('#card'))",
    );
    let (alt, _, bytes) = the_picture(root, &reply);
    assert_eq!(alt, "snapshot 220×80");
    let px = decode(&bytes);
    assert_eq!((px.width, px.height), (220, 80));
    assert_eq!(px.at(5, 40), [0, 0, 255, 255], "the border, from the style");
    assert_eq!(px.at(150, 70), [255, 0, 0, 255], "the background");
    // The text is drawn (white pixels somewhere near "Hello").
    let white = (20..120).any(|x| (0..25).any(|y| px.at(x, y)[..3] == [255, 255, 255]));
    assert!(white, "the text is drawn");

    // The whole page by default: something is drawn.
    let reply = ask(&log, "await daebug.snapshot()");
    let (_, _, bytes) = the_picture(root, &reply);
    assert!(decode(&bytes).drawn());
}

#[test]
fn a_picture_over_16_mib_is_refused_with_a_note() {
    let world = world();
    let root = world.root.path();
    let log = world.log("paint-");
    let reply = ask(
        &log,
        "await daebug.image(new Blob([new Uint8Array(17 * 1024 * 1024)], { type: 'image/png' }), { name: 'huge' })",
    );
    assert!(
        reply.contains(
            "(image \"huge\" not saved: 17.0 MiB is over the 16 MiB limit, so it was dropped)"
        ),
        "{reply}"
    );
    assert!(
        reply.contains("over the 16 MiB limit: not sent"),
        "the promise says so:\n{reply}"
    );
    assert!(pictures(&reply).is_empty());
    let archive = root.join("debug/archive");
    let saved = std::fs::read_dir(&archive).map_or(0, |d| d.count());
    assert_eq!(saved, 0, "nothing saved");
}

const WORKER_PAGE: &str = "<!doctype html><html><head><title>Paint</title></head><body>\
    <script>new Worker('/worker.js', { type: 'module' })</script></body></html>";

#[test]
fn a_module_worker_sends_offscreen_canvases_blobs_bitmaps_and_image_data() {
    let world = World::new(
        &[
            ("index.html", WORKER_PAGE),
            ("worker.js", "import '/daebug.js?name=painter';\n"),
        ],
        "index.html",
    );
    let root = world.root.path();
    let log = world.log("painter-");
    let offscreen = "const c = new OffscreenCanvas(30, 20);\n\
        const x = c.getContext('2d');\n\
        x.fillStyle = 'rgb(255,0,0)'; x.fillRect(0, 0, 30, 20);\n";

    let reply = ask(&log, &format!("{offscreen}await daebug.image(c)"));
    let (alt, _, bytes) = the_picture(root, &reply);
    assert_eq!(alt, "canvas 30×20");
    assert_eq!(decode(&bytes).at(29, 19), [255, 0, 0, 255]);

    // A Blob keeps its own type.
    let reply = ask(
        &log,
        &format!("{offscreen}await daebug.image(await c.convertToBlob({{ type: 'image/jpeg' }}))"),
    );
    let (alt, path, bytes) = the_picture(root, &reply);
    assert_eq!(alt, "image 30×20");
    assert!(path.ends_with(".jpg"), "{path}");
    assert_eq!(&bytes[..3], [0xff, 0xd8, 0xff], "a JPEG");

    let reply = ask(&log, &format!("{offscreen}c.transferToImageBitmap()"));
    let (alt, _, bytes) = the_picture(root, &reply);
    assert_eq!(alt, "bitmap 30×20", "a value that is an ImageBitmap");
    assert_eq!(decode(&bytes).at(0, 0), [255, 0, 0, 255]);

    let reply = ask(
        &log,
        "const d = new ImageData(2, 2); d.data.set([0,0,255,255, 0,0,255,255, 0,0,255,255, 0,0,255,255]);\n\
         await daebug.image(d)",
    );
    let (alt, _, bytes) = the_picture(root, &reply);
    assert_eq!(alt, "imagedata 2×2");
    assert_eq!(decode(&bytes).at(1, 1), [0, 0, 255, 255]);

    let reply = ask(&log, "await daebug.snapshot()");
    assert!(
        reply.contains("daebug.snapshot() draws a page's DOM, and a worker has none"),
        "{reply}"
    );
}

#[test]
fn mcp_eval_returns_the_pictures_as_image_content() {
    use base64::Engine as _;
    use rmcp::model::{CallToolRequestParams, ClientConfig};
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::ServiceExt;

    let world = world();
    let log = world.log("paint-");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let url = format!("{}/mcp", world.base);
    let code =
        format!("{CANVAS}daebug.image(c); await daebug.image(c, {{ name: 'again' }}); 'done'");
    let result = rt.block_on(async {
        let client = ClientConfig::default()
            .serve(StreamableHttpClientTransport::from_uri(url))
            .await
            .expect("MCP initialize");
        let mut args = serde_json::Map::new();
        args.insert("realm".into(), log.stem.clone().into());
        args.insert("code".into(), code.into());
        let params = CallToolRequestParams::new("eval").with_arguments(args);
        let result = tokio::time::timeout(support::DEADLINE, client.call_tool(params))
            .await
            .expect("eval answers")
            .expect("eval");
        let _ = client.cancel().await;
        result
    });
    assert_ne!(result.is_error, Some(true));
    let text: String = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.clone())
        .collect();
    let lines = pictures(&text);
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[1].0, "again 300×150");
    let images: Vec<_> = result.content.iter().filter_map(|c| c.as_image()).collect();
    assert_eq!(images.len(), 2, "one image content per picture line");
    for ((_, path), image) in lines.iter().zip(&images) {
        assert_eq!(image.mime_type, "image/png");
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&image.data)
            .expect("base64");
        let file = std::fs::read(world.root.path().join("debug").join(path)).unwrap();
        assert_eq!(bytes, file, "the saved file's bytes");
        assert_eq!(decode(&bytes).at(10, 10), [255, 0, 0, 255]);
    }
    // The log has the same reply.
    assert!(log
        .text()
        .contains(&format!("![again 300×150]({})", lines[1].1)));
}
