package viz

import (
	"bytes"
	"fmt"
	"io"

	"github.com/nmc-go/nmc/internal/fileio"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// DPI is the resolution of PNG output: a plot w wide is w/vg.Inch·DPI pixels wide.
const DPI = vgimg.DefaultDPI

// render draws p in the given format ("png" or "svg"). gonum/plot panics on some
// inconsistent plots (a log axis over non-positive values, for instance); such a
// panic is returned as an error.
func render(p *plot.Plot, w, h vg.Length, format string) (out []byte, err error) {
	if p == nil {
		return nil, fmt.Errorf("viz: %s: nil plot", format)
	}
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("viz: %s: size %v x %v, want positive width and height", format, w, h)
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("viz: %s: rendering failed: %v", format, r)
		}
	}()
	wt, err := p.WriterTo(w, h, format)
	if err != nil {
		return nil, fmt.Errorf("viz: %s: %w", format, err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("viz: %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

// PNG renders p as a PNG image of w × h (at DPI dots per inch). It returns an
// error for a nil plot, a non-positive size or a failed rendering.
func PNG(p *plot.Plot, w, h vg.Length) ([]byte, error) { return render(p, w, h, "png") }

// SVG renders p as an SVG document of w × h. It returns an error for a nil plot,
// a non-positive size or a failed rendering.
func SVG(p *plot.Plot, w, h vg.Length) ([]byte, error) { return render(p, w, h, "svg") }

// SavePNG renders p as a PNG image of w × h and writes it to path. The image is
// rendered completely before the file is created.
func SavePNG(p *plot.Plot, path string, w, h vg.Length) error {
	b, err := PNG(p, w, h)
	if err != nil {
		return err
	}
	return writeFile(path, b)
}

// SaveSVG renders p as an SVG document of w × h and writes it to path. The
// document is rendered completely before the file is created.
func SaveSVG(p *plot.Plot, path string, w, h vg.Length) error {
	b, err := SVG(p, w, h)
	if err != nil {
		return err
	}
	return writeFile(path, b)
}

// writeFile writes b to path through fileio.WriteFile, so that a failed write
// leaves no partial image under path.
func writeFile(path string, b []byte) error {
	err := fileio.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("viz: %w", err)
	}
	return nil
}

// Grid renders plots as one PNG image of w × h, plots[i][j] in row i, column j;
// all rows must have the same length, and a nil entry leaves its tile empty.
// Axes of plots in one column (row) are aligned. It returns an error for no
// plots, ragged rows, a non-positive size or a failed rendering.
func Grid(plots [][]*plot.Plot, w, h vg.Length) (out []byte, err error) {
	if len(plots) == 0 || len(plots[0]) == 0 {
		return nil, fmt.Errorf("viz: grid: no plots given")
	}
	cols := len(plots[0])
	for i, row := range plots {
		if len(row) != cols {
			return nil, fmt.Errorf("viz: grid: row %d has %d plots, want %d", i, len(row), cols)
		}
	}
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("viz: grid: size %v x %v, want positive width and height", w, h)
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("viz: grid: rendering failed: %v", r)
		}
	}()
	img := vgimg.New(w, h)
	dc := draw.New(img)
	t := draw.Tiles{
		Rows: len(plots), Cols: cols,
		PadX: 2 * vg.Millimeter, PadY: 3 * vg.Millimeter,
		PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(2),
	}
	canvases := plot.Align(plots, t, dc)
	for i, row := range plots {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("viz: grid: %w", err)
	}
	return buf.Bytes(), nil
}
