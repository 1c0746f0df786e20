// Command footer appends DuckDB's extension metadata footer to a shared library, making it a loadable
// `.duckdb_extension` file. The platform and versions are flags, so tests can also make wrong footers:
//
//	go run ./extension/footer -in build/libsqlnb.so -out build/sqlnb.duckdb_extension \
//	    -platform linux_amd64 -api-version v1.2.0 -extension-version v0.1.0
//	go run ./extension/footer -print build/sqlnb.duckdb_extension
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("footer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("in", "", "the shared library (input)")
	out := fs.String("out", "", "the extension file to write (library + footer)")
	print := fs.String("print", "", "print the footer of this extension file and exit")
	var m Metadata
	fs.StringVar(&m.Platform, "platform", "linux_amd64", "DuckDB platform")
	fs.StringVar(&m.APIVersion, "api-version", "v1.2.0", "C API version (abi C_STRUCT) or DuckDB version")
	fs.StringVar(&m.ExtensionVersion, "extension-version", "dev", "extension version")
	fs.StringVar(&m.ABIType, "abi", "C_STRUCT", "ABI type")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *print != "" {
		b, err := os.ReadFile(*print)
		if err == nil {
			m, err = Decode(b)
		}
		if err != nil {
			fmt.Fprintf(stderr, "footer: %s: %v\n", *print, err)
			return 1
		}
		fmt.Fprintf(stdout, "abi_type=%s extension_version=%s api_version=%s platform=%s\n",
			m.ABIType, m.ExtensionVersion, m.APIVersion, m.Platform)
		return 0
	}
	if *in == "" || *out == "" {
		fmt.Fprintln(stderr, "footer: -in and -out are required")
		return 2
	}
	if err := write(*in, *out, m); err != nil {
		fmt.Fprintf(stderr, "footer: %v\n", err)
		return 1
	}
	return 0
}

// write copies the library to out (through a temporary file, renamed at the end) and appends the footer.
func write(in, out string, m Metadata) error {
	f, err := Encode(m)
	if err != nil {
		return err
	}
	lib, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, append(lib, f...), 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}
