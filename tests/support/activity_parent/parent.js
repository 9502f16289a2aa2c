// Discord's client as an Activity's frame sees it: the Embedded App SDK's postMessage protocol
// (opcodes HANDSHAKE 0, FRAME 1, CLOSE 2), READY after the handshake, and the commands the page sends
// answered as Discord answers them. The test names the user, the instance, the locale and the OAuth2
// code Discord's AUTHORIZE gives (made by the Discord-like server) in this page's query.
const params = new URLSearchParams(location.search);
const user = { id: params.get("user"), username: params.get("name") || "player", discriminator: "0" };
const frameId = "frame-" + Math.random().toString(16).slice(2);
const log = (window.discordLog = []);
const moments = (window.shareMoments = []); // the share-moment dialogs opened, by their media's URL
// Discord's CDN, the one host a moment's media may come from (an attachment's URL as Discord returns it)
const CDN = /^https:\/\/cdn\.discordapp\.com\/ephemeral-attachments\/[0-9]+\/[0-9]+\/[^/?#]+(\?[^#]*)?$/;
window.violations = [];
document.addEventListener("securitypolicyviolation", (event) => window.violations.push(event.violatedDirective));

const frame = document.createElement("iframe");
const query = new URLSearchParams({
  frame_id: frameId,
  instance_id: params.get("instance"),
  platform: params.get("platform") || "desktop",
  guild_id: params.get("guild"),
  channel_id: params.get("channel"),
});
if (!params.has("guild")) query.delete("guild_id"); // a DM: Discord names no server
frame.src = `/?${query}`;
frame.title = "Pyramide";
document.body.append(frame);

function send(opcode, payload) {
  frame.contentWindow.postMessage([opcode, payload], location.origin);
}

function answer(frameData, data) {
  send(1, { cmd: frameData.cmd, evt: null, nonce: frameData.nonce, data });
}

function refuse(frameData, code, message) {
  send(1, { cmd: frameData.cmd, evt: "ERROR", nonce: frameData.nonce, data: { code, message } });
}

window.addEventListener("message", (event) => {
  if (event.source !== frame.contentWindow || event.origin !== location.origin) return;
  const [opcode, data] = event.data;
  if (opcode === 0) {
    log.push({ op: "HANDSHAKE", data });
    if (data.v !== 1 || data.frame_id !== frameId || !data.client_id) return; // Discord ignores a bad one
    send(1, {
      cmd: "DISPATCH",
      evt: "READY",
      nonce: null,
      data: { v: 1, config: { cdn_host: "cdn.discordapp.com", api_endpoint: "//discord.com/api", environment: "production" }, user },
    });
    return;
  }
  if (opcode !== 1) return;
  log.push({ op: "FRAME", cmd: data.cmd, args: data.args });
  switch (data.cmd) {
    case "AUTHORIZE": {
      const args = data.args || {};
      if (args.response_type !== "code" || !Array.isArray(args.scope) || args.scope.length === 0) {
        refuse(data, 4000, "invalid authorize arguments");
      } else {
        answer(data, { code: params.get("code") });
      }
      break;
    }
    case "AUTHENTICATE":
      answer(data, {
        access_token: data.args.access_token,
        user: { ...user, avatar: null, public_flags: 0, global_name: params.get("name") },
        scopes: ["identify"],
        expires: new Date(Date.now() + 604800000).toISOString(),
        application: { description: "", icon: null, id: params.get("client"), name: "Pyramide" },
      });
      break;
    case "USER_SETTINGS_GET_LOCALE":
      answer(data, { locale: params.get("locale") || "en-US" });
      break;
    case "OPEN_SHARE_MOMENT_DIALOG": {
      const mediaUrl = (data.args || {}).mediaUrl;
      if (typeof mediaUrl !== "string" || mediaUrl.length > 1024 || !CDN.test(mediaUrl)) {
        refuse(data, 4000, "mediaUrl must be a Discord CDN URL");
      } else {
        moments.push(mediaUrl);
        answer(data, null);
      }
      break;
    }
    case "CAPTURE_LOG":
      answer(data, null);
      break;
    default:
      refuse(data, 1000, `unknown command ${data.cmd}`);
  }
});
