/** Who we are, in every place that says it (serverInfo, --version, the socket's hello, the board library); package.json's name and version, checked by version.test.ts. */
export const PACKAGE_NAME = 'jumperless-mcp';
export const PACKAGE_VERSION = '0.1.0';
