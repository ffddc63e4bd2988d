// Stands in for react-devtools-core in the compiled binary (scripts/build-cli.ts): Ink imports it
// only when DEV=true and the package resolves; the binary never connects to React DevTools.
export default {
  initialize(): void {},
  connectToDevTools(): void {},
};
