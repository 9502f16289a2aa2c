// The choices besides a move, as the board offers them: End (confirmed first), a new deal (the finished
// game's rules or the same deal, or the deal form's options), the question whether to end the running
// game for a new deal, Share (a counted daily's line, to the clipboard), a winning line and a replay.
// The bot decides who may do what; the page only asks.
export class Choices {
  constructor(root, table, form, playback, send, keys) {
    this.root = root;
    this.keys = keys;
    this.table = table;
    this.form = form;
    this.playback = playback;
    this.send = send;
    this.asked = null; // the options of the last deal asked for, to send again with "End it and deal"
    this.dealt = null; // the game shown when the form was last closed
    this.confirm = root.querySelector("#confirm");
    this.ask = root.querySelector("#ask");
    this.share = root.querySelector("#share");
    this.opener = null; // what had the focus when a dialog opened, to give it back
    table.onAction = (action, button) => this.chosen(action, button);
    form.onDeal = (options) => this.deal(options);
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape") this.escape();
    });
  }

  // Escape closes the open dialog (the End confirmation, the question before a deal, the deal form over a
  // game) and gives the focus back where it was.
  escape() {
    const game = this.game;
    if (!this.confirm.hidden) {
      this.chosen("end-no");
    } else if (!this.ask.hidden) {
      this.chosen("keep");
    } else if (!this.form.form.hidden && game) {
      this.form.show(false);
      this.back(this.form.toggle);
    }
  }

  back(fallback) {
    const opener = this.opener && this.opener.isConnected && !this.opener.closest("[hidden]") ? this.opener : fallback;
    this.opener = null;
    opener.focus();
  }

  get game() {
    return this.table.state && this.table.state.game;
  }

  deal(options) {
    this.asked = options;
    this.ask.hidden = true;
    this.send({ t: "deal", options });
  }

  chosen(action, button) {
    const game = this.game;
    if (action === "end" && game) {
      this.opener = button;
      this.confirm.hidden = false;
      this.confirm.querySelector('[data-action="end-yes"]').focus();
    } else if (action === "end-yes" && game) {
      this.back(this.root.querySelector('[data-action="end"]')); // (and on to the ending's choices: keys.js)
      this.confirm.hidden = true;
      this.send({ t: "end", version: game.version });
    } else if (action === "end-no") {
      this.confirm.hidden = true;
      this.back(this.root.querySelector('[data-action="end"]'));
    } else if ((action === "new" || action === "again") && game) {
      // A board where nothing can be removed any more is still running: the choice ends it, as the board's.
      this.deal({ again: game.id, same: action === "again", replace: game.id });
    } else if (action === "replace" && this.asked) {
      this.deal({ ...this.asked, replace: Number(button.dataset.game) });
    } else if (action === "keep") {
      this.ask.hidden = true;
      this.table.say("");
      this.back(this.form.form.hidden ? this.form.toggle : this.form.form.querySelector('[type="submit"]'));
    } else if (action === "deal-form") {
      this.form.show(this.form.form.hidden);
      if (!this.form.form.hidden) this.form.form.querySelector("input").focus();
    } else if (action === "share" && game && game.offers && game.offers.share) {
      this.copy(game.offers.share);
    } else if ((action === "line" || action === "mine") && game) {
      this.send({ t: action, game: game.id });
    } else if (action === "stop") {
      this.playback.stop();
    }
  }

  // The share line is shown, and copied where the frame may write the clipboard (else selected to copy).
  async copy(line) {
    this.share.textContent = line;
    this.share.hidden = false;
    const texts = this.table.texts;
    try {
      await navigator.clipboard.writeText(line);
      this.table.say(texts["activity.copied"] || "");
    } catch {
      getSelection().selectAllChildren(this.share);
      this.table.say(texts["activity.copy_select"] || "");
    }
  }

  // Each state the bot sends: a question to answer, a line to step through, or the game as it is now.
  shown(state) {
    if (state.playback) {
      this.playback.play(state.playback);
      this.table.say((state.words || []).join(" "));
      return;
    }
    const playing = this.playback.on;
    const before = playing && this.table.state && this.table.state.game;
    const game = state.game;
    if (playing && before && game && before.id === game.id && before.version === game.version) {
      this.table.state = state; // (who is here changed) the line plays on
      return;
    }
    this.playback.stop(false);
    this.table.show(state);
    this.ask.hidden = !state.ask;
    if (state.ask) {
      const replace = this.ask.querySelector('[data-action="replace"]');
      replace.dataset.game = String(state.ask.game);
      replace.disabled = !state.ask.allowed;
      this.opener = document.activeElement;
      (replace.disabled ? this.ask.querySelector('[data-action="keep"]') : replace).focus();
    }
    if (!game || game.finished) this.confirm.hidden = true;
    if (!game || !(game.offers && game.offers.share)) this.share.hidden = true;
    if (!game) {
      this.form.show(true);
    } else if (game.id !== this.dealt) {
      const dealing = this.form.form.contains(document.activeElement) || this.ask.contains(document.activeElement);
      this.form.show(false); // a new game here (this page's deal went through, or another's)
      if (dealing) this.keys.refocus(game);
    }
    this.dealt = game ? game.id : null;
  }
}
