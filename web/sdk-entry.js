// The one module of the Embedded App SDK the page uses, bundled by esbuild at set-up (build/sdk.js).
export { DiscordSDK } from "@discord/embedded-app-sdk";
