// Command brokenmain builds in the current environment and fails to build
// with -tags breakme: a build that fails in one environment only.
package main

func main() {}
