package main

import "github.com/spf13/cobra"

func newCVCmd(e *env) *cobra.Command { return &cobra.Command{Use: "cv", Hidden: true} }
