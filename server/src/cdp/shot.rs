//! Pure: what `daebug.screenshot(selector?)` asks the browser, and what
//! its answers mean. An element's box comes from the page itself
//! (`getBoundingClientRect` plus the scroll, in CSS pixels, the units
//! `Page.captureScreenshot`'s clip takes); the whole page is the layout's
//! content size. Both are taken beyond the viewport.

use serde_json::{json, Value};

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

/// A clip rectangle from an element's box (the `Runtime.evaluate`
/// result), or why there is none.
pub fn clip_of(selector: &str, evaluated: &Value) -> Result<Value, String> {
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
    Ok(clip(n("x"), n("y"), width, height))
}

/// The whole page's clip, from `Page.getLayoutMetrics`.
pub fn page_clip(metrics: &Value) -> Result<Value, String> {
    let size = metrics
        .get("cssContentSize")
        .or_else(|| metrics.get("contentSize"))
        .ok_or("the browser gave no page size")?;
    let n = |k: &str| size.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    if n("width") < 1.0 || n("height") < 1.0 {
        return Err("the page has no size".into());
    }
    Ok(clip(0.0, 0.0, n("width"), n("height")))
}

fn clip(x: f64, y: f64, width: f64, height: f64) -> Value {
    json!({ "x": x, "y": y, "width": width, "height": height, "scale": 1 })
}

/// `Page.captureScreenshot`'s parameters.
pub fn capture_params(clip: Value) -> Value {
    json!({ "format": "png", "clip": clip, "captureBeyondViewport": true, "fromSurface": true })
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
        assert_eq!(
            clip_of("#box", &found).unwrap(),
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
        let metrics = json!({"cssContentSize": {"x": 0, "y": 0, "width": 800.0, "height": 1200.0}});
        assert_eq!(page_clip(&metrics).unwrap()["height"], 1200.0);
        assert!(page_clip(&json!({})).is_err());
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
