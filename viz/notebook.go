package viz

import (
	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// InNotebook reports whether the program runs inside a GoNB notebook cell with a
// working display pipe.
func InNotebook() bool { return gonbui.IsNotebook && gonbui.Open() == nil }

// Display shows p as a w × h PNG image in a GoNB notebook. Outside a notebook it
// does nothing and returns nil (the plot is not even rendered). It returns an
// error if rendering fails.
func Display(p *plot.Plot, w, h vg.Length) error {
	if !InNotebook() {
		return nil
	}
	b, err := PNG(p, w, h)
	if err != nil {
		return err
	}
	gonbui.DisplayPng(b)
	return nil
}

// DisplaySVG shows p as a w × h SVG image (an image/svg+xml output, not HTML) in
// a GoNB notebook. Outside a notebook it does nothing and returns nil. It returns
// an error if rendering fails.
func DisplaySVG(p *plot.Plot, w, h vg.Length) error {
	if !InNotebook() {
		return nil
	}
	b, err := SVG(p, w, h)
	if err != nil {
		return err
	}
	gonbui.SendData(&protocol.DisplayData{Data: map[protocol.MIMEType]any{protocol.MIMEImageSVG: string(b)}})
	return nil
}

// Flush waits until everything sent to the notebook has been displayed; call it
// at the end of a cell (defer viz.Flush()). Outside a notebook, or with a broken
// display pipe, it returns at once.
func Flush() {
	if InNotebook() {
		gonbui.Sync()
	}
}
