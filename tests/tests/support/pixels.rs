//! Saved pictures read back: a PNG decoded (with the lean `png` crate)
//! into its size and RGBA pixels.

/// A decoded picture: its size and RGBA pixels.
pub struct Pixels {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Pixels {
    pub fn at(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        self.rgba[i..i + 4].try_into().unwrap()
    }

    /// Whether any pixel is not fully transparent.
    pub fn drawn(&self) -> bool {
        self.rgba.chunks(4).any(|p| p[3] != 0)
    }
}

pub fn decode(bytes: &[u8]) -> Pixels {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf[..info.buffer_size()].to_vec(),
        png::ColorType::GrayscaleAlpha => buf[..info.buffer_size()]
            .chunks(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        other => panic!("unexpected colour type {other:?}"),
    };
    Pixels {
        width: info.width,
        height: info.height,
        rgba,
    }
}

/// What a screenshot shows, counted: its size, its distinct colours, and
/// the share of pixels that differ from the most common colour (the
/// background).
#[derive(Debug)]
pub struct PixelCount {
    pub width: u32,
    pub height: u32,
    pub colours: usize,
    pub foreground: f64,
}

/// Counts a PNG's pixels (see [`PixelCount`]).
pub fn count_pixels(png_bytes: &[u8]) -> PixelCount {
    let p = decode(png_bytes);
    let mut counts = std::collections::HashMap::<&[u8], usize>::new();
    let pixels = p.rgba.chunks_exact(4);
    let total = pixels.len();
    for pixel in pixels {
        *counts.entry(pixel).or_default() += 1;
    }
    let background = counts.values().copied().max().unwrap_or(0);
    PixelCount {
        width: p.width,
        height: p.height,
        colours: counts.len(),
        foreground: if total == 0 {
            0.0
        } else {
            (total - background) as f64 / total as f64
        },
    }
}
