// "Show a winning line" and "Replay my game": the bot sends the positions (card indexes, with the deal's
// cards named once) and how long to show each; the page steps through them with its own drawing, the
// pairs and kings about to go marked as a hint is. Taps do nothing meanwhile; Stop, the last position or
// a change of the channel's game ends it.
export class Playback {
  constructor(table) {
    this.table = table;
    this.timer = null;
    this.bar = table.root.querySelector("#playback");
  }

  get on() {
    return this.timer !== null;
  }

  position(frame, cards) {
    const free = new Set(frame.free);
    const card = (key, spot) => (key == null ? null : { ...cards[key], spot, free: free.has(spot) });
    return {
      id: -1,
      pyramid: frame.pyramid.map((key, spot) => card(key, String(spot))),
      waste: card(frame.waste, "waste"),
      under: card(frame.under, "under"),
      stock: frame.stock,
      can_turn: frame.can_turn,
      selected: frame.selected,
      score: frame.score,
      moves: frame.moves,
      passes: "",
    };
  }

  play(playback) {
    this.stop(false);
    const table = this.table;
    table.playing = true;
    table.root.dataset.playback = playback.kind;
    this.bar.hidden = false;
    let previous = null;
    const step = (index) => {
      const frame = playback.frames[index];
      const shown = this.position(frame, playback.cards);
      table.draw(shown, previous);
      table.highlight(frame.highlight);
      table.root.dataset.step = String(index);
      previous = shown;
      this.timer = setTimeout(() => (index + 1 < playback.frames.length ? step(index + 1) : this.stop()), frame.ms);
    };
    step(0);
  }

  // Back to the channel's game as it is (``redraw`` false: another playback follows at once).
  stop(redraw = true) {
    if (this.timer !== null) clearTimeout(this.timer);
    const was = this.table.playing;
    this.timer = null;
    this.table.playing = false;
    this.bar.hidden = true;
    delete this.table.root.dataset.playback;
    delete this.table.root.dataset.step;
    if (redraw && was && this.table.state) {
      const state = this.table.state;
      this.table.state = { ...state, game: null }; // draw every card again, not as a move from the last step
      this.table.show({ ...state, words: [], highlight: [] });
    }
  }
}
