package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/internal/outfile"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/store"
)

// newModelsExportCmd is `models export`: a model as JSON, to stdout or a file.
func newModelsExportCmd(e *env) *cobra.Command {
	var exportOut string
	export := &cobra.Command{
		Use: "export MODEL [--output FILE]", Short: "Write a model as JSON (to stdout or --output)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := e.openReadOnly()
			if err != nil {
				return err
			}
			defer db.Close()
			m, err := sqlnb.Load(cmd.Context(), db, args[0])
			if err != nil {
				return err
			}
			if exportOut == "" {
				return store.Export(e.stdout, m)
			}
			var buf bytes.Buffer
			if err := store.Export(&buf, m); err != nil {
				return err
			}
			if err := outfile.WriteFile(exportOut, buf.Bytes()); err != nil {
				return err
			}
			if !e.quiet {
				fmt.Fprintf(e.stderr, "wrote model %q to %s\n", m.Name, exportOut)
			}
			return nil
		},
	}
	export.Flags().StringVar(&exportOut, "output", "", "JSON file to write")
	return export
}

// newModelsImportCmd is `models import`: a model from JSON that export wrote, stored.
func newModelsImportCmd(e *env) *cobra.Command {
	var importName string
	var replace bool
	imp := &cobra.Command{
		Use: "import FILE|- [--name NAME] [--replace]", Short: "Store a model from JSON written by export (- reads standard input; a stored model of that name only with --replace)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := e.open()
			if err != nil {
				return err
			}
			defer db.Close()
			var in io.Reader = e.stdin // "-": standard input
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				in = f
			}
			m, err := sqlnb.Import(in, importName)
			if err != nil {
				return err
			}
			if err := sqlnb.SaveImported(cmd.Context(), db, m, replace); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "imported %q: %d classes, %d features\n", m.Name, len(m.Classes), len(m.Features))
			return nil
		},
	}
	imp.Flags().StringVar(&importName, "name", "", "store under this name instead of the one in the file")
	imp.Flags().BoolVar(&replace, "replace", false, "replace a stored model of the same name")
	return imp
}
