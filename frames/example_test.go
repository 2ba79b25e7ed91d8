package frames_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/frames"
)

func exampleDraws() *draws.Draws {
	return &draws.Draws{
		Names: []string{"mu", "beta[0]", "beta[1]"},
		Chains: [][]float64{
			{0.5, 1e-7, -2, 0.25, 2e-7, -1.5},
			{0.75, -3e-7, -2.5, 1, 0, -1},
		},
	}
}

func ExampleWriteCSV() {
	var buf bytes.Buffer
	if err := frames.WriteCSV(&buf, exampleDraws()); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(buf.String())
	d, err := frames.ReadCSV(&buf, "draws.csv")
	fmt.Println(d.NumChains(), d.NumDraws(1), d.Chains[1][1], err)
	// Output:
	// chain,draw,mu,beta[0],beta[1]
	// 0,0,0.5,1e-07,-2
	// 0,1,0.25,2e-07,-1.5
	// 1,0,0.75,-3e-07,-2.5
	// 1,1,1,0,-1
	// 2 2 -3e-07 <nil>
}

func ExampleReadCSV_error() {
	in := "chain,draw,mu,beta[2]\n0,0,1,2\n0,1,1,abc\n"
	_, err := frames.ReadCSV(strings.NewReader(in), "draws.csv")
	fmt.Println(err)
	// Output:
	// frames: draws.csv:3: column "beta[2]": cannot parse "abc"
}

func ExampleDataFrame() {
	df, err := frames.DataFrame(exampleDraws())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(df.Names())
	fmt.Println(df.Nrow(), "rows")
	fmt.Printf("mean of mu %.4f\n", df.Col("mu").Mean())
	// Output:
	// [chain draw mu beta[0] beta[1]]
	// 4 rows
	// mean of mu 0.6250
}

func ExampleLongDataFrame() {
	df, err := frames.LongDataFrame(exampleDraws())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(df.Names(), df.Nrow())
	fmt.Println(df.Col("variable").Records()[:3])
	// Output:
	// [chain draw variable value] 12
	// [mu beta[0] beta[1]]
}

func ExampleFromDataFrame() {
	df, _ := frames.DataFrame(exampleDraws())
	d, err := frames.FromDataFrame(df)
	fmt.Println(d.Names, d.NumChains(), d.NumDraws(0), err)
	// Output:
	// [mu beta[0] beta[1]] 2 2 <nil>
}

func ExampleReadCmdStanFiles() {
	d, err := frames.ReadCmdStanFiles("testdata/cmdstan_chain1.csv", "testdata/cmdstan_chain2.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Names)
	fmt.Println(d.NumChains(), "chains of", d.NumDraws(0), "and", d.NumDraws(1), "draws")
	// Output:
	// [lp__ mu beta[0] beta[1] beta[2] theta[0,0] theta[1,0] theta[0,1] theta[1,1]]
	// 2 chains of 5 and 3 draws
}

func ExampleStanToName() {
	for _, s := range []string{"beta.3", "theta[2,1]", "sigma"} {
		n, _ := frames.StanToName(s)
		fmt.Println(s, "→", n)
	}
	// Output:
	// beta.3 → beta[2]
	// theta[2,1] → theta[1,0]
	// sigma → sigma
}

func ExampleWriteCSVFile() {
	dir, _ := os.MkdirTemp("", "frames")
	defer os.RemoveAll(dir)
	path := dir + "/draws.csv"
	if err := frames.WriteCSVFile(path, exampleDraws()); err != nil {
		fmt.Println(err)
		return
	}
	d, err := frames.ReadCSVFile(path)
	fmt.Println(d.Names, err)
	// Output:
	// [mu beta[0] beta[1]] <nil>
}

// ReadDraws tells the format by the header: here R posterior's draws_df as
// write.csv writes it, with 1-based chains and names.
func ExampleReadDraws() {
	in := `"","mu","theta[1]",".chain",".iteration",".draw"
"1",0.5,1.25,1,1,1
"2",0.75,1.5,1,2,2
"3",0.25,1,2,1,3
"4",1,2,2,2,4
`
	d, err := frames.ReadDraws(strings.NewReader(in), "draws_df.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Names, d.NumChains(), "chains of", d.NumDraws(0), "draws")
	fmt.Println(d.Chains[1])
	// Output:
	// [mu theta[0]] 2 chains of 2 draws
	// [0.25 1 1 2]
}
