//! `daebug.screenshot(selector?)`: what it asks the browser, what the
//! answers mean (pure, tested below), and the calls ([`take`]).
//!
//! A screenshot leaves the page as it was and is exact the first time
//! (docs/browser-bridge.md, "Screenshots"). An element's box comes from
//! the page itself (`getBoundingClientRect` plus the scroll, in CSS
//! pixels, the units `Page.captureScreenshot`'s clip takes). When the box
//! is inside the viewport, that is the clip and nothing changes. When it
//! is not (or the whole page is asked), the view is made as large as the
//! page for the moment of the picture (`Emulation.setDeviceMetricsOverride`,
//! as wide as the layout was without its scrollbar: the page then needs
//! none, and lays out as before), the box is measured again in it, and
//! afterwards the override is cleared and every scroll position put back.
//! The browser's own `captureBeyondViewport` is not used: it resizes the
//! view after the box was measured (the layout loses its scrollbar, so a
//! centred element moves by half its width and comes out shifted and cut)
//! and left the page without its scrollbar for good.

use serde_json::{json, Value};

use super::connection::CdpCommands;

/// A rectangle in page coordinates, CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clip {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Clip {
    fn to_json(self) -> Value {
        json!({ "x": self.x, "y": self.y, "width": self.width, "height": self.height, "scale": 1 })
    }
}

/// The page's view and size, from `Page.getLayoutMetrics`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// What is shown: the visual viewport, in page coordinates.
    pub shown: Clip,
    /// Whether the page is pinch-zoomed (the shown part is then scaled).
    pub zoomed: bool,
    /// The layout viewport's size without its scrollbars.
    pub client_width: f64,
    pub client_height: f64,
    /// The page's content size.
    pub content_width: f64,
    pub content_height: f64,
}

impl View {
    pub fn of(metrics: &Value) -> Result<View, String> {
        let visual = metrics
            .get("cssVisualViewport")
            .ok_or("the browser gave no viewport")?;
        let layout = metrics
            .get("cssLayoutViewport")
            .ok_or("the browser gave no viewport")?;
        let content = metrics
            .get("cssContentSize")
            .or_else(|| metrics.get("contentSize"))
            .ok_or("the browser gave no page size")?;
        let n = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let scale = visual.get("scale").and_then(Value::as_f64).unwrap_or(1.0);
        Ok(View {
            shown: Clip {
                x: n(visual, "pageX"),
                y: n(visual, "pageY"),
                width: n(visual, "clientWidth"),
                height: n(visual, "clientHeight"),
            },
            zoomed: (scale - 1.0).abs() > 1e-6,
            client_width: n(layout, "clientWidth"),
            client_height: n(layout, "clientHeight"),
            content_width: n(content, "width"),
            content_height: n(content, "height"),
        })
    }

    /// Whether all of `clip` is on screen now (a picture of it changes
    /// nothing).
    pub fn shows(&self, clip: &Clip) -> bool {
        let v = &self.shown;
        !self.zoomed
            && clip.x >= v.x
            && clip.y >= v.y
            && clip.x + clip.width <= v.x + v.width
            && clip.y + clip.height <= v.y + v.height
    }

    /// The whole page.
    pub fn page(&self) -> Result<Clip, String> {
        if self.content_width < 1.0 || self.content_height < 1.0 {
            return Err("the page has no size".into());
        }
        Ok(Clip {
            x: 0.0,
            y: 0.0,
            width: self.content_width,
            height: self.content_height,
        })
    }

    /// `Emulation.setDeviceMetricsOverride`'s parameters for a view that
    /// shows the whole page: as wide as the layout is without its
    /// scrollbar (wider only when the content is) and as tall as the
    /// content, so the page needs no scrollbar and keeps its layout width.
    /// The device's scale and the screen stay as they are.
    pub fn whole(&self) -> Value {
        let width = self.client_width.max(self.content_width).ceil().max(1.0);
        let height = self.client_height.max(self.content_height).ceil().max(1.0);
        json!({ "width": width as u64, "height": height as u64, "deviceScaleFactor": 0, "mobile": false })
    }
}

/// The expression that finds the element's box in page coordinates
/// (`null` when nothing matches). The selector goes in as a JSON string,
/// so no selector can end the expression.
pub fn element_box(selector: &str) -> String {
    let quoted = serde_json::to_string(selector).unwrap_or_else(|_| "\"\"".into());
    format!(
        "(() => {{ const el = document.querySelector({quoted}); if (!el) return null; \
         const r = el.getBoundingClientRect(); \
         return {{ x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height }} }})()"
    )
}

/// A clip from an element's box (the `Runtime.evaluate` result), or why
/// there is none.
pub fn clip_of(selector: &str, evaluated: &Value) -> Result<Clip, String> {
    if let Some(e) = evaluated.get("exceptionDetails") {
        let text = e
            .pointer("/exception/description")
            .or_else(|| e.get("text"))
            .and_then(Value::as_str)
            .unwrap_or("it threw");
        let first = text.lines().next().unwrap_or(text);
        return Err(format!("screenshot({}): {first}", quoted(selector)));
    }
    let value = evaluated.pointer("/result/value").unwrap_or(&Value::Null);
    if value.is_null() {
        return Err(format!(
            "screenshot({}): no element matches in this page",
            quoted(selector)
        ));
    }
    let n = |k: &str| value.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let (width, height) = (n("width"), n("height"));
    if width < 1.0 || height < 1.0 {
        return Err(format!(
            "screenshot({}): the element has no size ({width}×{height}; hidden?)",
            quoted(selector)
        ));
    }
    Ok(Clip {
        x: n("x"),
        y: n("y"),
        width,
        height,
    })
}

/// `Page.captureScreenshot`'s parameters: the clip as the view shows it
/// (never the browser's own beyond-the-viewport capture: see above).
pub fn capture_params(clip: Clip) -> Value {
    json!({ "format": "png", "clip": clip.to_json(), "captureBeyondViewport": false, "fromSurface": true })
}

/// The expression that notes every scroll position that is not at the
/// start (the page's, and each scrolled element's), and the view's size,
/// as a remote object for [`RESTORE`]. Elements in shadow roots are not
/// looked into.
pub const SCROLLS: &str = "(() => { const kept = []; const root = document.scrollingElement || document.documentElement; \
    for (const el of [root, ...document.querySelectorAll('*')]) { \
      if ((el.scrollLeft || el.scrollTop) && !kept.some((k) => k[0] === el)) kept.push([el, el.scrollLeft, el.scrollTop]); } \
    return { kept, width: innerWidth, height: innerHeight }; })()";

/// The function (called on what [`SCROLLS`] noted) that waits for the
/// view to be its own size again (a second at most), then puts each
/// scroll position back where it moved, at once (not smoothly).
pub const RESTORE: &str = "async function () { const end = performance.now() + 1000; \
    while ((innerWidth !== this.width || innerHeight !== this.height) && performance.now() < end) \
      await new Promise((r) => setTimeout(r, 10)); \
    for (const [el, left, top] of this.kept) \
      if (el.scrollLeft !== left || el.scrollTop !== top) el.scrollTo({ left, top, behavior: 'instant' }); }";

/// The object group of the noted scroll positions.
const GROUP: &str = "daebug-screenshot";

/// The PNG of `selector`'s element (or the whole page) in `session`; the
/// page as it was afterwards.
pub async fn take(
    commands: &CdpCommands,
    session: &str,
    selector: Option<&str>,
) -> Result<Vec<u8>, String> {
    let s = Some(session);
    let view = View::of(&metrics(commands, s).await?)?;
    let clip = match selector {
        Some(sel) => measure(commands, s, sel).await?,
        None => view.page()?,
    };
    if view.shows(&clip) {
        return capture(commands, s, clip).await;
    }
    // Beyond the view: the whole page in view for a moment.
    let noted = commands
        .call(
            "Runtime.evaluate",
            json!({ "expression": SCROLLS, "silent": true, "objectGroup": GROUP }),
            s,
        )
        .await
        .ok()
        .and_then(|v| v.pointer("/result/objectId")?.as_str().map(str::to_string));
    let taken = match commands
        .call("Emulation.setDeviceMetricsOverride", view.whole(), s)
        .await
    {
        Err(e) => Err(e.to_string()),
        Ok(_) => {
            let taken = async {
                let clip = match selector {
                    Some(sel) => measure(commands, s, sel).await?,
                    None => View::of(&metrics(commands, s).await?)?.page()?,
                };
                capture(commands, s, clip).await
            }
            .await;
            let _ = commands
                .call("Emulation.clearDeviceMetricsOverride", json!({}), s)
                .await;
            taken
        }
    };
    if let Some(id) = noted {
        let params = json!({ "functionDeclaration": RESTORE, "objectId": id, "awaitPromise": true, "silent": true });
        let _ = commands.call("Runtime.callFunctionOn", params, s).await;
    }
    let _ = commands
        .call(
            "Runtime.releaseObjectGroup",
            json!({ "objectGroup": GROUP }),
            s,
        )
        .await;
    taken
}

async fn metrics(commands: &CdpCommands, s: Option<&str>) -> Result<Value, String> {
    commands
        .call("Page.getLayoutMetrics", json!({}), s)
        .await
        .map_err(|e| e.to_string())
}

async fn measure(commands: &CdpCommands, s: Option<&str>, selector: &str) -> Result<Clip, String> {
    let params =
        json!({ "expression": element_box(selector), "returnByValue": true, "silent": true });
    let found = commands
        .call("Runtime.evaluate", params, s)
        .await
        .map_err(|e| e.to_string())?;
    clip_of(selector, &found)
}

async fn capture(commands: &CdpCommands, s: Option<&str>, clip: Clip) -> Result<Vec<u8>, String> {
    let taken = commands
        .call("Page.captureScreenshot", capture_params(clip), s)
        .await
        .map_err(|e| e.to_string())?;
    let data = taken
        .get("data")
        .and_then(Value::as_str)
        .ok_or("the browser sent no picture")?;
    base64_simd::STANDARD
        .decode_to_vec(data)
        .map_err(|_| "the browser sent a garbled picture".to_string())
}

/// A PNG's width and height, from its header.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" || &png[12..16] != b"IHDR" {
        return None;
    }
    let be = |at: usize| u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]);
    Some((be(16), be(20)))
}

fn quoted(selector: &str) -> String {
    serde_json::to_string(selector).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selector_cannot_end_the_expression() {
        let e = element_box("a\"); alert(1); (\"");
        assert!(
            e.contains(r#"document.querySelector("a\"); alert(1); (\"")"#),
            "{e}"
        );
    }

    #[test]
    fn answers_become_a_clip_or_a_reason() {
        let found = json!({"result": {"type": "object", "value": {"x": 8.0, "y": 100.5, "width": 50.0, "height": 30.0}}});
        let clip = clip_of("#box", &found).unwrap();
        assert_eq!(
            capture_params(clip)["clip"],
            json!({"x": 8.0, "y": 100.5, "width": 50.0, "height": 30.0, "scale": 1})
        );
        let none = json!({"result": {"type": "object", "subtype": "null", "value": null}});
        assert_eq!(
            clip_of("#nope", &none).unwrap_err(),
            "screenshot(\"#nope\"): no element matches in this page"
        );
        let hidden = json!({"result": {"value": {"x": 0, "y": 0, "width": 0, "height": 0}}});
        assert!(clip_of("#h", &hidden).unwrap_err().contains("no size"));
        let bad = json!({"result": {}, "exceptionDetails": {"text": "Uncaught", "exception": {"description": "SyntaxError: Failed to execute 'querySelector' on 'Document': '##' is not a valid selector.\n    at <anonymous>:1:30"}}});
        assert_eq!(
            clip_of("##", &bad).unwrap_err(),
            "screenshot(\"##\"): SyntaxError: Failed to execute 'querySelector' on 'Document': '##' is not a valid selector."
        );
        assert!(View::of(&json!({})).is_err());
    }

    /// `Page.getLayoutMetrics` as Chromium 156 answers for a 1200×657
    /// view of a page 3200 px tall scrolled by 20 px: a 15 px scrollbar.
    fn scrolled() -> View {
        View::of(&json!({
            "cssLayoutViewport": {"pageX": 0, "pageY": 20, "clientWidth": 1185, "clientHeight": 657},
            "cssContentSize": {"x": 0, "y": 0, "width": 1185, "height": 3200},
            "cssVisualViewport": {"offsetX": 0, "offsetY": 0, "pageX": 0, "pageY": 20,
                "clientWidth": 1185, "clientHeight": 657, "scale": 1, "zoom": 1}
        }))
        .unwrap()
    }

    #[test]
    fn a_box_on_screen_is_taken_as_it_is() {
        let view = scrolled();
        let at = |y: f64, height: f64| Clip {
            x: 442.5,
            y,
            width: 300.0,
            height,
        };
        assert!(view.shows(&at(40.0, 100.0)));
        assert!(view.shows(&at(20.0, 657.0)), "the whole view");
        assert!(!view.shows(&at(10.0, 100.0)), "above it, scrolled away");
        assert!(!view.shows(&at(600.0, 100.0)), "below the fold");
        let wide = Clip {
            x: 1000.0,
            y: 40.0,
            width: 190.0,
            height: 10.0,
        };
        assert!(!view.shows(&wide), "under the scrollbar");
        let mut zoomed = view;
        zoomed.zoomed = true;
        assert!(!zoomed.shows(&at(40.0, 100.0)));
    }

    #[test]
    fn the_whole_page_in_view_keeps_the_layouts_width() {
        let view = scrolled();
        // Not the window's 1200: the page would lose its scrollbar and
        // lay out 15 px wider (the trial's 7.5 px shift).
        assert_eq!(
            view.whole(),
            json!({"width": 1185, "height": 3200, "deviceScaleFactor": 0, "mobile": false})
        );
        assert_eq!(
            view.page().unwrap(),
            Clip {
                x: 0.0,
                y: 0.0,
                width: 1185.0,
                height: 3200.0
            }
        );
        // Content wider than the view (a horizontal scrollbar): all of it.
        let mut wide = view;
        wide.content_width = 2000.4;
        assert_eq!(wide.whole()["width"], 2001);
        let mut empty = view;
        empty.content_height = 0.0;
        assert!(empty.page().is_err());
    }

    #[test]
    fn png_sizes_are_read_from_the_header() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend(50u32.to_be_bytes());
        png.extend(30u32.to_be_bytes());
        assert_eq!(png_size(&png), Some((50, 30)));
        assert_eq!(png_size(b"GIF89a"), None);
    }
}
