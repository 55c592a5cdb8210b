package handlers

import (
	"math"
	"strconv"
	"strings"

	"gateway/views"
)

// The dashboard's charts are laid out here and drawn by views.SVGChart: one
// slot per time bucket, in a fixed viewBox that the SVG scales to its width.
const (
	chartWidth  = 640
	chartHeight = 200
	chartLeft   = 60
	chartRight  = 630
	chartTop    = 12
	chartBottom = 172
	// chartMaxXTicks bounds the time labels, so that they never overlap.
	chartMaxXTicks = 6
)

// chartAxis is the time axis: a short label per slot for the ticks, and a
// long one for the tooltips.
type chartAxis struct {
	ticks, tips []string
}

// chartSeries is one named row of values, one per slot; tone picks its
// colour (0 blue, 1 red for failures, 2 teal).
type chartSeries struct {
	name   string
	tone   int
	values []float64
}

func chartFrame(title, testID string, axis chartAxis) views.Chart {
	c := views.Chart{Title: title, TestID: testID, Width: chartWidth, Height: chartHeight,
		PlotLeft: chartLeft, PlotTop: chartTop, PlotRight: chartRight, PlotBottom: chartBottom}
	step := (len(axis.ticks) + chartMaxXTicks - 1) / chartMaxXTicks
	for i := 0; i < len(axis.ticks); i += max(step, 1) {
		c.XTicks = append(c.XTicks, views.ChartTick{Pos: slotCentre(i, len(axis.ticks)), Label: axis.ticks[i]})
	}
	return c
}

func slotWidth(n int) float64 { return (chartRight - chartLeft) / float64(max(n, 1)) }

func slotCentre(i, n int) float64 { return chartLeft + (float64(i)+0.5)*slotWidth(n) }

// barChart stacks the series in each slot, the first at the bottom. A slot's
// zero values draw nothing, so the bars are exactly the non-zero values.
func barChart(title, testID string, axis chartAxis, series []chartSeries, format func(float64) string) views.Chart {
	c := chartFrame(title, testID, axis)
	n := len(axis.ticks)
	top := 0.0
	for i := range n {
		sum := 0.0
		for _, s := range series {
			sum += max(s.values[i], 0)
		}
		top = max(top, sum)
	}
	scale := yScale(&c, top, format)
	w := slotWidth(n) * 0.7
	for i := range n {
		base := float64(chartBottom)
		for _, s := range series {
			v := s.values[i]
			if v <= 0 {
				continue
			}
			h := max(v*scale, 1) // a small value still shows
			base -= h
			c.Bars = append(c.Bars, views.ChartBar{X: slotCentre(i, n) - w/2, Y: base, W: w, H: h, Series: s.tone,
				Label: axis.tips[i] + " · " + s.name + ": " + format(v)})
		}
	}
	if len(series) > 1 {
		for _, s := range series {
			c.Legend = append(c.Legend, views.ChartLegend{Label: s.name, Series: s.tone})
		}
	}
	return c
}

// lineChart draws one line through the slots that have a value (has[i]).
func lineChart(title, testID string, axis chartAxis, values []float64, has []bool, format func(float64) string) views.Chart {
	c := chartFrame(title, testID, axis)
	n := len(axis.ticks)
	top := 0.0
	for i, v := range values {
		if has[i] {
			top = max(top, v)
		}
	}
	scale := yScale(&c, top, format)
	var pts []string
	for i, v := range values {
		if !has[i] {
			continue
		}
		p := views.ChartPoint{X: slotCentre(i, n), Y: chartBottom - v*scale, Label: axis.tips[i] + ": " + format(v)}
		c.Points = append(c.Points, p)
		pts = append(pts, svgCoord(p.X)+","+svgCoord(p.Y))
	}
	c.Line = strings.Join(pts, " ")
	if len(c.Points) == 0 {
		c.Empty = true
	}
	return c
}

// yScale sets the value axis for values up to top and returns the height of
// one unit. A chart without data says so.
func yScale(c *views.Chart, top float64, format func(float64) string) float64 {
	if top <= 0 {
		c.Empty = true
	}
	ceil := niceCeil(top)
	for _, f := range []float64{0, 0.5, 1} {
		c.YTicks = append(c.YTicks, views.ChartTick{Pos: chartBottom - f*(chartBottom-chartTop), Label: format(f * ceil)})
	}
	return (chartBottom - chartTop) / ceil
}

// niceCeil rounds up to 1, 2, 2.5 or 5 times a power of ten, so that the
// axis reads in round numbers.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

func svgCoord(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
