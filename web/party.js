// The party race (issue #48): everyone in the instance races one deal, each on a board of their own (the
// table draws the player's own board: the bot sends it as the state's game). This draws the rest from the
// state's "party": the start (data-action="party", or with the deal form's options), the countdown and
// who joined (data-action="join"), each rival (data-rival, data-user, data-removed, their name and a
// small grid of their pyramid: a cell a card, filled while it is there), the podium (data-podium, each
// place data-place and data-user). Rivals are announced at a calm rate: a lead change, a clear, the end.
// The clock, the podium and the rivals are a compact strip above the racer's own board; once the race is
// over the page offers one next race (the deal form behind "Other options…"). Where Discord refused the
// bot's posts in the channel ("untold"), Share uploads the podium picture the bot draws as an attachment of
// the application (POST /applications/{id}/attachment with the player's token, through Discord's proxy:
// the URL mapping /discord/api) and opens the SDK's share-moment dialog on its Discord CDN URL.
function fill(text, values) {
  return (text || "").replace(/\{(\w+)\}/g, (_all, name) => String(values[name] ?? ""));
}

function clock(seconds) {
  const whole = Math.max(0, Math.round(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

export class Party {
  constructor(root, table, form, send, sdk, signed) {
    this.root = root;
    this.table = table;
    this.form = form;
    this.send = send;
    this.sdk = sdk;
    this.signed = signed; // { token, clientId }: the player's access token, for the podium's upload
    this.section = root.querySelector("#party");
    this.race = root.querySelector("#race");
    this.status = this.race.querySelector("#party-status");
    this.rivals = this.race.querySelector("#rivals");
    this.podium = this.race.querySelector("[data-podium]");
    this.join = this.section.querySelector('[data-action="join"]');
    this.start = this.section.querySelector('[data-action="party"]');
    this.options = this.section.querySelector('[data-action="party-options"]');
    this.share = this.section.querySelector('[data-action="podium-share"]');
    this.untold = this.section.querySelector("#party-untold");
    this.invite = this.section.querySelector('[data-action="invite"]');
    this.opened = false; // the deal form opened by "Other options…" over the podium
    this.party = null;
    this.deadline = 0; // when the countdown (or the race) ends, on this page's clock
    this.leader = null;
    this.finished = new Set();
    // Discord refuses the invite dialog outside servers (a DM, a group DM).
    this.invite.hidden = !(sdk && sdk.guildId);
    setInterval(() => this.tick(), 1000);
  }

  get texts() {
    return this.table.texts;
  }

  // A press of the page's buttons that is the party's; false for the others' (choices.js).
  chosen(action) {
    if (action === "party") {
      this.send({ t: "party", options: {} });
    } else if (action === "party-these") {
      this.send({ t: "party", options: this.form.options() });
      this.showForm(false);
    } else if (action === "party-options") {
      this.showForm(this.form.form.hidden);
      if (this.opened) this.form.form.querySelector("input").focus();
    } else if (action === "podium-share") {
      this.share.disabled = true; // (until the picture is shared, or the answer to the ask refuses it)
      this.asked = true;
      this.send({ t: "podium" });
    } else if (action === "join") {
      this.send({ t: "join" });
    } else if (action === "invite") {
      this.sdk.commands.openInviteDialog().catch(() => {});
    } else {
      return false;
    }
    return true;
  }

  showForm(visible) {
    this.opened = visible;
    this.form.show(visible);
    this.options.setAttribute("aria-expanded", String(visible));
  }

  shown(state) {
    const party = state.party || null;
    const you = state.you && state.you.id;
    const phase = party ? party.phase : "none";
    if (phase !== (this.party ? this.party.phase : "none")) this.opened = false;
    this.party = party;
    this.section.dataset.phase = phase;
    this.root.dataset.party = phase;
    // (a racer while the race runs; once it is over everyone is back at the table, under the podium)
    const racer = Boolean(party && party.phase === "racing" && party.rivals.some((r) => r.id === you));
    if (racer) this.root.dataset.racer = "";
    else delete this.root.dataset.racer;
    this.race.hidden = !party;
    this.start.hidden = Boolean(party && party.phase !== "over");
    this.options.hidden = phase !== "over";
    const untold = phase === "over" && Boolean(party.untold);
    this.share.hidden = !untold;
    // The answer to "share" came and no picture is being shared (refused: slow down, busy): press it again.
    if (this.asked && "words" in state && !this.uploading) {
      this.asked = false;
      this.share.disabled = false;
    }
    this.untold.hidden = !untold;
    const joined = party && party.phase === "gathering" && party.racers.some((r) => r.id === you);
    this.join.hidden = !(party && party.phase === "gathering" && !joined);
    if (!party) {
      this.status.textContent = "";
      this.rivals.replaceChildren();
      this.podium.replaceChildren();
      this.podium.hidden = true;
      return;
    }
    if (party.phase === "gathering") {
      this.deadline = Date.now() + party.starts_in * 1000;
      this.rivals.replaceChildren();
      this.podium.hidden = true;
      this.leader = null;
      this.finished = new Set();
    } else {
      this.deadline = Date.now() + party.ends_in * 1000;
      this.drawRivals(party, you);
      this.speak(party);
    }
    // A spectator watches the race rather than a form to deal in the channel; over the podium the form
    // waits behind "Other options…".
    if (!state.game && !this.opened) this.form.show(false);
    this.options.setAttribute("aria-expanded", String(!this.form.form.hidden));
    this.podium.hidden = party.phase !== "over";
    if (party.phase === "over") this.drawPodium(party);
    this.tick();
  }

  tick() {
    const party = this.party;
    if (!party) return;
    const left = (this.deadline - Date.now()) / 1000;
    if (party.phase === "gathering") {
      const names = party.racers.map((r) => r.name).join(", ");
      this.status.textContent = `${fill(this.texts["party.countdown"], { seconds: Math.max(0, Math.ceil(left)) })} · ${fill(this.texts["party.racers"], { names })}`;
    } else if (party.phase === "racing") {
      const racing = party.rivals.some((r) => r.id === (this.table.state && this.table.state.you.id));
      const time = fill(this.texts["party.ends_in"], { time: clock(left) });
      this.status.textContent = racing ? time : `${this.texts["party.watch"] || ""} ${time}`;
    } else {
      this.status.textContent = this.texts["party.podium"] || ""; // (the winner is said in #words: speak())
    }
  }

  drawRivals(party, you) {
    const items = party.rivals.filter((rival) => rival.id !== you).map((rival) => {
      const item = document.createElement("li");
      item.dataset.rival = "";
      item.dataset.user = rival.id;
      item.dataset.removed = String(rival.removed);
      item.dataset.status = rival.status;
      const name = Object.assign(document.createElement("span"), { className: "rival-name", textContent: rival.name });
      const grid = document.createElement("span");
      grid.className = "mini";
      grid.setAttribute("role", "img");
      grid.setAttribute("aria-label", fill(this.texts["party.rival"], rival));
      for (let row = 0; row < 7; row += 1) {
        const line = document.createElement("span");
        for (let spot = row * (row + 1) / 2; spot < (row + 1) * (row + 2) / 2; spot += 1) {
          const cell = document.createElement("i");
          if (rival.left[spot] === "1") cell.className = "left";
          line.append(cell);
        }
        grid.append(line);
      }
      const count = Object.assign(document.createElement("b"), { textContent: `${rival.removed}/28` });
      count.setAttribute("aria-hidden", "true");
      item.append(name, grid, count);
      return item;
    });
    this.rivals.replaceChildren(...items);
  }

  // The podium picture the bot sent (t: podium), uploaded as the application's attachment and shared.
  async pictured(message) {
    const texts = this.texts;
    this.uploading = true;
    try {
      const bytes = Uint8Array.from(atob(message.png.slice(message.png.indexOf(",") + 1)), (c) => c.charCodeAt(0));
      const body = new FormData();
      body.append("file", new Blob([bytes], { type: "image/png" }), "podium.png");
      const answer = await fetch(`/discord/api/v10/applications/${this.signed.clientId}/attachment`, {
        method: "POST",
        headers: { Authorization: `Bearer ${this.signed.token}` },
        body,
      });
      if (!answer.ok) throw new Error(`upload: ${answer.status}`);
      const { attachment } = await answer.json();
      await this.sdk.commands.openShareMomentDialog({ mediaUrl: attachment.url });
    } catch {
      this.table.say(texts["party.share_failed"] || "");
    } finally {
      this.uploading = false;
      this.share.disabled = false;
    }
  }

  drawPodium(party) {
    const places = party.rivals.map((rival) => {
      const item = document.createElement("li");
      item.dataset.place = String(rival.place);
      item.dataset.user = rival.id;
      item.textContent = fill(this.texts["party.place"], rival);
      return item;
    });
    this.podium.replaceChildren(...places);
  }

  // A lead change, a clear, the end: said between the player's own words, never every move.
  speak(party) {
    const news = [];
    const first = party.rivals[0];
    const leader = first && first.removed > 0 ? first.id : null;
    if (leader && this.leader !== null && leader !== this.leader && party.phase === "racing") {
      news.push(fill(this.texts["party.leads"], first));
    }
    this.leader = leader ?? this.leader;
    for (const rival of party.rivals) {
      if (rival.status === "won" && !this.finished.has(rival.id)) {
        this.finished.add(rival.id);
        news.push(fill(this.texts["party.cleared"], rival));
      }
    }
    if (party.phase === "over" && !this.finished.has("over")) {
      this.finished.add("over");
      const winner = party.rivals.find((r) => r.id === party.winner);
      news.push(winner ? fill(this.texts["party.over"], { name: winner.name }) : this.texts["party.no_winner"]);
    }
    if (news.length) this.table.announcer.rival(news.join(" "));
  }
}
