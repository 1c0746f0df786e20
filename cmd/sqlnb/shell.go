package main

import "github.com/spf13/cobra"

func newShellCmd(e *env) *cobra.Command { return &cobra.Command{Use: "shell", Hidden: true} }
