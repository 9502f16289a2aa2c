// Draws the channel's game from the states the bot sends: the pyramid, the stock and the waste as card
// buttons (each with data-spot, data-card and its name in the player's language), the figures, the
// players, and a finished game's result and choices. Taps go to the bot; the engine decides everything.
import { Announcer } from "./announce.js";

const LEAVE_MS = 180;

function duration(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const secs = String(whole % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${secs}` : `${minutes}:${secs}`;
}

export class Table {
  constructor(root) {
    this.root = root;
    this.texts = {};
    this.state = null;
    this.onAsk = () => {};
    this.onAction = () => {};
    this.onDrawn = () => {}; // (keys.js: the focus kept on a card that is still there)
    this.playing = false; // a winning line or a replay is shown: taps do nothing
    this.lang = document.documentElement.lang || "en";
    this.style = "classic.normal.green";
    this.pyramid = root.querySelector("#pyramid");
    this.announcer = new Announcer(root.querySelector("#words"));
    this.spots = [];
    for (let spot = 0; spot < 28; spot += 1) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "card";
      button.dataset.spot = String(spot);
      button.hidden = true;
      button.append(document.createElement("img"));
      button.querySelector("img").alt = "";
      this.pyramid.append(button);
      this.spots.push(button);
    }
    this.stock = root.querySelector("#stock");
    this.waste = root.querySelector("#waste");
    this.under = root.querySelector("#under");
    root.addEventListener("click", (event) => this.clicked(event));
    const motion = root.querySelector("#motion");
    motion.checked = localStorage.getItem("pyramide-motion") !== "off";
    document.documentElement.classList.toggle("still", !motion.checked);
    motion.addEventListener("change", () => {
      localStorage.setItem("pyramide-motion", motion.checked ? "on" : "off");
      document.documentElement.classList.toggle("still", !motion.checked);
    });
    setInterval(() => this.tick(), 1000);
  }

  clicked(event) {
    const button = event.target.closest("button");
    if (!button || !this.root.contains(button)) return;
    const game = this.state && this.state.game;
    if (button.dataset.spot && this.playing) return;
    if (button.dataset.spot && game) {
      if (button.dataset.spot !== "stock" && !button.classList.contains("covered")) {
        button.classList.add("lifted");
      }
      this.onAsk({ t: "tap", spot: button.dataset.spot, version: game.version });
    } else if (button.dataset.action === "undo" && game) {
      this.onAsk({ t: "undo", version: game.version });
    } else if (button.dataset.action === "hint" && game) {
      this.onAsk({ t: "hint", version: game.version });
    } else if (button.dataset.action) {
      this.onAction(button.dataset.action, button);
    }
  }

  face(index) {
    return `cards/${this.lang}/${this.style}/${index}.png`;
  }

  // The viewer's own style (their /pyramide style): its cards, and its table's colours through the page's
  // CSS variables (set through the CSSOM, which Discord's Content-Security-Policy allows).
  dress(style) {
    if (!style) return;
    this.style = [style.deck, style.corners, style.table].join(".");
    const colours = style.tableColours || {};
    const root = document.documentElement.style;
    if (colours.top) root.setProperty("--table-top", colours.top);
    if (colours.bottom) root.setProperty("--table-bottom", colours.bottom);
    if (colours.band) root.setProperty("--band", colours.band);
    this.root.dataset.style = this.style;
  }

  // A card's button: its face, and its name as a screen reader says it ("seven of clubs"; the waste's
  // "Waste: seven of clubs"); a blocked card is unavailable (aria-disabled: still a tap, which says why).
  card(button, card, covered, label = "{card}") {
    const image = button.querySelector("img");
    button.hidden = false;
    button.dataset.card = card.card;
    button.setAttribute("aria-label", label.replace("{card}", card.spoken || card.name));
    button.classList.toggle("covered", covered);
    if (covered) button.setAttribute("aria-disabled", "true");
    else button.removeAttribute("aria-disabled");
    const source = this.face(card.index);
    if (image.getAttribute("src") !== source) image.setAttribute("src", source);
  }

  leave(button) {
    if (button.hidden || button.classList.contains("leaving")) return;
    button.classList.add("leaving");
    const done = () => {
      button.classList.remove("leaving", "lifted");
      if (!button.dataset.card) button.hidden = true;
    };
    if (document.documentElement.classList.contains("still") || matchMedia("(prefers-reduced-motion: reduce)").matches) {
      done();
    } else {
      setTimeout(done, LEAVE_MS);
    }
  }

  show(state) {
    const focused = document.activeElement;
    this.dress(state.you && state.you.style);
    const previous = this.state && this.state.game;
    this.state = state;
    this.received = performance.now();
    const game = state.game;
    this.root.setAttribute("aria-busy", "false");
    this.root.dataset.role = state.you.plays ? "play" : "watch";
    this.root.dataset.state = game ? (game.finished ? "finished" : "playing") : "empty";
    // A racer of the running party races (on their own board, not the channel's); the others play or watch.
    const party = state.party;
    const racing = new Set(party && party.phase === "racing" ? party.rivals.filter((r) => r.status === "playing").map((r) => r.id) : []);
    const doing = (p) => (racing.has(p.id) ? "activity.races" : p.plays ? "activity.plays" : "activity.watches");
    this.root.querySelector("#players").textContent = state.players.map((p) => `${p.name} (${this.texts[doing(p)]})`).join(", ");
    if (state.words) this.say(state.words.join(" "));
    if (game && game.finished) this.announcer.result(game.id, game.version, state.ending, state.words !== undefined);
    // A broadcast of the same position (a hint's count stored) keeps the hint this page was shown.
    const same = previous && game && previous.id === game.id && previous.version === game.version;
    if (state.highlight || !same) this.highlight(state.highlight || []);
    const ending = this.root.querySelector("#ending");
    ending.hidden = !(game && game.finished);
    if (!game) {
      for (const button of this.spots) button.hidden = true;
      this.root.dataset.version = "";
      this.onDrawn(focused, null);
      return;
    }
    this.root.dataset.version = String(game.version);
    this.root.dataset.game = String(game.id);
    this.draw(game, previous);
    this.root.querySelector('[data-action="undo"]').disabled = !game.can_undo;
    this.root.querySelector('[data-action="end"]').disabled = game.finished;
    this.root.querySelector('[data-action="hint"]').disabled = game.finished;
    this.tick();
    if (game.finished) {
      const lines = this.root.querySelector("#ending-lines");
      lines.replaceChildren(...state.ending.map((line) => Object.assign(document.createElement("li"), { textContent: line.replaceAll("**", "") })));
      const offers = game.offers || {};
      const mine = state.you.id === game.owner;
      this.root.querySelector('[data-action="again"]').hidden = game.event;
      this.root.querySelector('[data-action="share"]').hidden = !(offers.share && mine);
      this.root.querySelector('[data-action="line"]').hidden = !offers.line;
      this.root.querySelector('[data-action="mine"]').hidden = !offers.replay;
    }
    this.onDrawn(focused, game);
  }

  say(text) {
    this.announcer.say(text);
  }

  highlight(spots) {
    const marked = new Set(spots);
    for (const button of this.root.querySelectorAll(".card")) button.classList.toggle("hinted", marked.has(button.dataset.spot));
  }

  // The cards, the piles and the figures of a position (the game's, or a step of a line or a replay).
  draw(game, previous) {
    game.pyramid.forEach((card, spot) => {
      const button = this.spots[spot];
      if (card) {
        this.card(button, card, !card.free);
        button.classList.remove("leaving");
      } else {
        delete button.dataset.card;
        button.removeAttribute("aria-label");
        button.removeAttribute("aria-disabled");
        this.leave(button);
      }
      button.classList.toggle("lifted", game.selected === String(spot));
      button.setAttribute("aria-pressed", game.selected === String(spot) ? "true" : "false");
    });
    this.drawPiles(game, previous);
    this.root.querySelector("#score").textContent = String(game.score);
    this.root.querySelector("#moves").textContent = String(game.moves);
    this.root.querySelector("#passes").textContent = game.passes;
  }

  drawPiles(game, previous) {
    const stock = this.stock;
    const stockImage = stock.querySelector("img");
    if (game.stock > 0) {
      stockImage.setAttribute("src", this.face("back"));
      stock.setAttribute("aria-label", (this.texts["button.draw"] || "Draw ({n})").replace("{n}", game.stock));
      stock.disabled = false;
    } else if (game.can_turn) {
      stockImage.setAttribute("src", this.face("turn"));
      stock.setAttribute("aria-label", this.texts["button.turn"] || "Turn back");
      stock.disabled = false;
    } else {
      stockImage.setAttribute("src", this.face("empty"));
      stock.setAttribute("aria-label", this.texts["button.no_stock"] || "—");
      stock.disabled = true;
    }
    const waste = this.waste;
    if (game.waste) {
      this.card(waste, game.waste, false, this.texts["activity.waste_card"]);
      waste.disabled = false;
      const drew = previous && previous.id === game.id && previous.stock === game.stock + 1;
      if (drew) {
        waste.classList.remove("slide");
        void waste.offsetWidth; // restart the animation
        waste.classList.add("slide");
      }
    } else {
      delete waste.dataset.card;
      waste.querySelector("img").setAttribute("src", this.face("empty"));
      waste.setAttribute("aria-label", this.texts["activity.empty_waste"] || "—");
      waste.disabled = true;
    }
    waste.classList.toggle("lifted", game.selected === "waste");
    waste.setAttribute("aria-pressed", game.selected === "waste" ? "true" : "false");
    if (game.under) {
      this.card(this.under, game.under, false, this.texts["activity.under_card"]);
      this.under.classList.toggle("lifted", game.selected === "under");
      this.under.setAttribute("aria-pressed", game.selected === "under" ? "true" : "false");
    } else {
      this.under.hidden = true;
      delete this.under.dataset.card;
    }
  }

  tick() {
    const game = this.state && this.state.game;
    if (!game || this.playing) return;
    const seconds = game.seconds + (game.running ? (performance.now() - this.received) / 1000 : 0);
    this.root.querySelector("#time").textContent = duration(seconds);
  }
}
