//go:build breakme

package main

var broken int = "not an int"
