// The page's one WebSocket, at an absolute address from location.host: wss:// under Discord (HTTPS),
// ws:// on a plain-HTTP test server. It reconnects after a loss (a bot restart) with the same session.
// 1013: too many pages of this player (the server says so in words); 4009 (read too slowly) reconnects.
const REFUSED = new Set([4001, 4003, 4008, 1009, 1013]);

export class Link {
  constructor(hello) {
    this.hello = hello;
    this.socket = null;
    this.pending = [];
    this.onTexts = () => {};
    this.onState = () => {};
    this.onMonth = () => {}; // the daily's month picture (daily.js)
    this.onPodium = () => {}; // a party's podium picture, to share (party.js)
    this.onLost = () => {};
    this.onRefused = () => {};
    this.wait = 250;
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/api/ws`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify({ t: "hello", ...this.hello }));
      this.wait = 250;
    });
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.t === "hello") {
        this.onTexts(message.texts);
        for (const waiting of this.pending.splice(0)) socket.send(waiting);
      } else if (message.t === "state") {
        this.onState(message);
      } else if (message.t === "month") {
        this.onMonth(message);
      } else if (message.t === "podium") {
        this.onPodium(message);
      }
    });
    socket.addEventListener("close", (event) => {
      if (REFUSED.has(event.code)) {
        this.onRefused(event.reason || String(event.code));
        return;
      }
      this.onLost();
      setTimeout(() => this.open(), this.wait);
      this.wait = Math.min(this.wait * 2, 4000);
    });
  }

  send(message) {
    const text = JSON.stringify(message);
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(text);
    } else {
      this.pending.push(text);
    }
  }
}
