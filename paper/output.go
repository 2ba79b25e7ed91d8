package paper

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nmc-go/nmc/internal/fileio"
)

// WriteTable writes the paper's table as aligned text: model, N, K, chains ×
// draws, the longest warm-up, wall time, CPU time, draws per second, samples to
// convergence, final PLL, min ESS, min ESS per second of wall time and per second
// of CPU time, max R-hat and peak heap ("-" for what a model does not have, or a
// CPU time the platform does not report).
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tN\tK\tchains×draws\twarm-up\twall time\tCPU time\tdraws/s\tsamples to conv.\tfinal PLL\tmin ESS\tmin ESS/s\tmin ESS/CPU s\tmax R-hat\tpeak heap\t")
	for _, r := range r.Rows {
		cpu, perCPU := "-", "-"
		if r.CPU > 0 {
			cpu, perCPU = FormatDuration(r.CPU), fmt.Sprintf("%.1f", r.MinESS/r.CPU.Seconds())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d×%d\t%d\t%s\t%s\t%.0f\t%s\t%s\t%.0f\t%.1f\t%s\t%.3f\t%s\t\n", r.Model, dash(r.N), dash(r.K), r.Chains, r.Draws, r.WarmupSweeps,
			FormatDuration(r.Wall), cpu, r.DrawsPerSecond(), dash(r.SamplesToConvergence), pllText(r.FinalPLL), r.MinESS, r.MinESS/r.Wall.Seconds(), perCPU, r.MaxRHat,
			formatBytes(r.PeakHeap))
	}
	return tw.Flush()
}

// WriteConjugateTable writes the conjugate comparison as aligned text (see
// WriteComparisons), with the model column.
func (r *Report) WriteConjugateTable(w io.Writer) error {
	return WriteComparisons(w, r.Conjugate, true)
}

// WriteComparisons writes estimates and exact posteriors side by side as aligned
// text: variable, mean, exact mean, sd, exact sd, mcse_mean and z = (mean − exact
// mean)/mcse_mean, preceded by the model when withModel is set.
func WriteComparisons(w io.Writer, rows []ConjugateRow, withModel bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if withModel {
		fmt.Fprint(tw, "model\t")
	}
	fmt.Fprintln(tw, "variable\tmean\texact mean\tsd\texact sd\tmcse_mean\tz\t")
	for _, r := range rows {
		if withModel {
			fmt.Fprintf(tw, "%s\t", r.Model)
		}
		fmt.Fprintf(tw, "%s\t%.4g\t%.4g\t%.4g\t%.4g\t%.2g\t%+.2f\t\n", r.Variable, r.Mean, r.ExactMean, r.SD, r.ExactSD, r.MCSE, r.Z)
	}
	return tw.Flush()
}

// FormatDuration rounds d for a table: 3 significant digits in seconds ("0.53s",
// "12.4s", "153s").
func FormatDuration(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s < 1:
		return fmt.Sprintf("%.2fs", s)
	case s < 100:
		return fmt.Sprintf("%.1fs", s)
	}
	return fmt.Sprintf("%.0fs", s)
}

// formatBytes formats a byte count in MiB or GiB.
func formatBytes(b uint64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

// dash formats a count, "-" for 0.
func dash(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// pllText formats a final PLL, "-" for NaN.
func pllText(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// WriteTableCSV writes the table as CSV with full precision (NA for missing
// values): model, N, K, chains, draws, wall_seconds, cpu_seconds,
// draws_per_second, samples_to_convergence, final_pll, min_ess_bulk,
// min_ess_per_second, min_ess_per_cpu_second, max_rhat, peak_heap_bytes.
func (r *Report) WriteTableCSV(w io.Writer) error {
	var b strings.Builder
	b.WriteString("model,N,K,chains,draws,warmup_sweeps,wall_seconds,cpu_seconds,draws_per_second,samples_to_convergence,final_pll,min_ess_bulk,min_ess_per_second,min_ess_per_cpu_second,max_rhat,peak_heap_bytes\n")
	na := func(v float64) string {
		if math.IsNaN(v) {
			return "NA"
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, r := range r.Rows {
		conv := "NA"
		if r.SamplesToConvergence > 0 {
			conv = strconv.Itoa(r.SamplesToConvergence)
		}
		cpu, perCPU := math.NaN(), math.NaN()
		if r.CPU > 0 {
			cpu, perCPU = r.CPU.Seconds(), r.MinESS/r.CPU.Seconds()
		}
		fmt.Fprintf(&b, "%s,%d,%d,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d\n", r.Model, r.N, r.K, r.Chains, r.Draws, r.WarmupSweeps,
			na(r.Wall.Seconds()), na(cpu), na(r.DrawsPerSecond()), conv, na(r.FinalPLL), na(r.MinESS), na(r.MinESS/r.Wall.Seconds()), na(perCPU), na(r.MaxRHat), r.PeakHeap)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteConjugateCSV writes the conjugate comparison as CSV with full precision:
// model, variable, mean, sd, mcse_mean, exact_mean, exact_sd, z.
func (r *Report) WriteConjugateCSV(w io.Writer) error {
	var b strings.Builder
	b.WriteString("model,variable,mean,sd,mcse_mean,exact_mean,exact_sd,z\n")
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, r := range r.Conjugate {
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s,%s,%s\n", r.Model, csvQuote(r.Variable), g(r.Mean), g(r.SD), g(r.MCSE), g(r.ExactMean), g(r.ExactSD), g(r.Z))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// csvQuote quotes s for CSV when it holds a comma or a quote.
func csvQuote(s string) string {
	if !strings.ContainsAny(s, ",\"\n") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// WriteFiles writes the report into dir, which must exist: every figure as
// NAME.png, the table as table.csv and, when there are conjugate rows,
// conjugate.csv. It returns the paths of the figures and of the tables written.
func (r *Report) WriteFiles(dir string) (figures, tables []string, err error) {
	for _, f := range r.Figures {
		path, err := f.WritePNG(dir)
		if err != nil {
			return nil, nil, err
		}
		figures = append(figures, path)
	}
	write := func(name string, fill func(io.Writer) error) error {
		path := filepath.Join(dir, name)
		if err := fileio.WriteFile(path, fill); err != nil {
			return err
		}
		tables = append(tables, path)
		return nil
	}
	if err := write("table.csv", r.WriteTableCSV); err != nil {
		return nil, nil, err
	}
	if len(r.Conjugate) > 0 {
		if err := write("conjugate.csv", r.WriteConjugateCSV); err != nil {
			return nil, nil, err
		}
	}
	return figures, tables, nil
}
