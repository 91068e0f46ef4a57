//! Text: glyphs laid out along a baseline with the font's advances and kerning, rasterised with
//! antialiasing and blended onto the figure (horizontally, or turned a quarter left for a y label).

use ab_glyph::{point, Font, FontRef, Glyph, PxScale, ScaleFont};
use tiny_skia::{ColorU8, Pixmap};

/// Where the anchor point is on the text's box.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Align {
    Start,
    Center,
    End,
}

pub struct Fonts<'a> {
    pub font: FontRef<'a>,
    pub px_per_pt: f64,
}

/// A laid-out line of text: glyphs on a baseline one ascent below the box's top; its width and
/// height (ascent + descent) in pixels.
struct Run {
    glyphs: Vec<Glyph>,
    width: f32,
    height: f32,
}

impl<'a> Fonts<'a> {
    pub fn new(data: &'a [u8], dpi: f64) -> Result<Self, crate::ChartError> {
        let font = FontRef::try_from_slice(data).map_err(|e| crate::ChartError(format!("font: {e}")))?;
        Ok(Fonts { font, px_per_pt: dpi / 72.0 })
    }

    fn layout(&self, text: &str, size_pt: f64) -> Run {
        let scale = PxScale::from((size_pt * self.px_per_pt) as f32);
        let f = self.font.as_scaled(scale);
        let mut glyphs = Vec::with_capacity(text.len());
        let mut x = 0.0f32;
        let mut prev = None;
        for c in text.chars() {
            let id = f.glyph_id(c);
            if let Some(p) = prev {
                x += f.kern(p, id);
            }
            glyphs.push(id.with_scale_and_position(scale, point(x, f.ascent())));
            x += f.h_advance(id);
            prev = Some(id);
        }
        Run { glyphs, width: x, height: f.ascent() - f.descent() }
    }

    /// Width of `text` in pixels.
    pub fn width(&self, text: &str, size_pt: f64) -> f64 {
        self.layout(text, size_pt).width as f64
    }

    /// Height of a line (ascent + descent) in pixels.
    pub fn line_height(&self, size_pt: f64) -> f64 {
        self.layout("", size_pt).height as f64
    }

    /// Draw `text` with its box aligned at (x, y): `h` along the text, `v` across it (Start =
    /// top). `vertical`: turned a quarter left (reads bottom to top), as a y axis label.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(&self, pm: &mut Pixmap, text: &str, size_pt: f64, x: f64, y: f64, h: Align, v: Align, vertical: bool, color: ColorU8) {
        let run = self.layout(text, size_pt);
        let shift = |a: Align, len: f32| match a {
            Align::Start => 0.0,
            Align::Center => len / 2.0,
            Align::End => len,
        };
        // the box's top-left corner in the text's own frame
        let (ox, oy) = (x as f32, y as f32);
        let (along, across) = (shift(h, run.width), shift(v, run.height));
        for g in run.glyphs {
            let Some(outline) = self.font.outline_glyph(g) else { continue };
            let b = outline.px_bounds();
            outline.draw(|gx, gy, c| {
                // (tx, ty): the pixel in the text's frame, from the box's top-left corner
                let tx = b.min.x + gx as f32 - along;
                let ty = b.min.y + gy as f32 - across;
                let (px, py) = if vertical { (ox + ty, oy - tx) } else { (ox + tx, oy + ty) };
                blend(pm, px.round() as i32, py.round() as i32, color, c);
            });
        }
    }
}

/// Blend `color` with coverage `c` (0..1) onto an opaque pixel.
fn blend(pm: &mut Pixmap, x: i32, y: i32, color: ColorU8, c: f32) {
    if x < 0 || y < 0 || x >= pm.width() as i32 || y >= pm.height() as i32 || c <= 0.0 {
        return;
    }
    let a = (c.min(1.0) * color.alpha() as f32 / 255.0).clamp(0.0, 1.0);
    let i = (y as u32 * pm.width() + x as u32) as usize;
    let data = pm.data_mut();
    let px = &mut data[i * 4..i * 4 + 4];
    let mix = |d: u8, s: u8| ((d as f32) * (1.0 - a) + (s as f32) * a).round() as u8;
    px[0] = mix(px[0], color.red());
    px[1] = mix(px[1], color.green());
    px[2] = mix(px[2], color.blue());
    px[3] = 255;
}
