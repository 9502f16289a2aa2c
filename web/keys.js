// Keyboard play. Tab reaches each area once: the pyramid is one stop (its free card last focused, a
// roving tabindex), the piles another (Left and Right between the stock, the card under the waste and the
// waste), then the other controls. In the pyramid the arrow keys go between the free cards in its own
// order: Left and Right along the rows (on to the next row), Up and Down to the nearest free card of the
// row above or below, Home and End to the first and the last.
// Enter and Space are the buttons' own: a key is the very click a tap is. Blocked cards are no stops
// (a screen reader hears them as unavailable). When the card under the focus goes, the focus moves to
// the nearest free card, else the piles, else a finished game's first choice: it is never lost.
const ROW_APART = 7; // a row up or down counts as far as seven cards across, when the nearest is sought

function place(spot) {
  let row = 0;
  while (((row + 1) * (row + 2)) / 2 <= spot) row += 1;
  return { row, x: spot - (row * (row + 1)) / 2 - row / 2 }; // x: across the table, in card widths
}

function usable(element) {
  return element && element.isConnected && !element.disabled && !element.closest("[hidden]") && element.getClientRects().length > 0;
}

export class Keys {
  constructor(table) {
    this.table = table;
    this.current = null; // the pyramid's one stop
    table.pyramid.addEventListener("keydown", (event) => this.arrow(event));
    table.pyramid.addEventListener("focusin", (event) => {
      const card = event.target.closest(".card");
      if (card && this.free(card)) this.rove(card);
    });
    this.piles = [...table.root.querySelectorAll(".piles .card")]; // (in their order on the table)
    this.pile = table.stock; // the piles' one stop
    const piles = table.root.querySelector(".piles");
    piles.addEventListener("keydown", (event) => this.pileArrow(event));
    piles.addEventListener("focusin", (event) => {
      if (this.piles.includes(event.target)) this.rovePiles(event.target);
    });
    table.onDrawn = (focused, game) => this.drawn(focused, game);
  }

  rovePiles(target) {
    this.pile = target;
    for (const button of this.piles) button.tabIndex = button === target ? 0 : -1;
  }

  pileArrow(event) {
    const step = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
    if (!step || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    const open = this.piles.filter(usable);
    const next = open[open.indexOf(event.target) + step];
    if (next) {
      this.rovePiles(next);
      next.focus();
    }
  }

  free(button) {
    return !button.hidden && !button.classList.contains("covered") && !button.classList.contains("leaving");
  }

  stops() {
    return this.table.spots.filter((button) => this.free(button));
  }

  rove(target) {
    for (const button of this.table.spots) button.tabIndex = button === target ? 0 : -1;
    this.current = target ? target.dataset.spot : null;
  }

  nearest(stops, spot) {
    if (spot == null) return stops[0];
    const from = place(Number(spot));
    const distance = (button) => {
      const to = place(Number(button.dataset.spot));
      return Math.abs(to.row - from.row) * ROW_APART + Math.abs(to.x - from.x);
    };
    return stops.reduce((best, button) => (distance(button) < distance(best) ? button : best), stops[0]);
  }

  drawn(focused, game) {
    const stops = this.stops();
    const kept = stops.find((button) => button.dataset.spot === this.current);
    const from = this.table.spots.includes(focused) ? focused.dataset.spot : this.current;
    const target = kept || (stops.length ? this.nearest(stops, from) : null);
    this.rove(target);
    this.rovePiles(usable(this.pile) ? this.pile : this.piles.find(usable) || this.table.stock);
    const stays = usable(focused) && (!this.table.spots.includes(focused) || stops.includes(focused));
    if (!focused || focused === document.body || stays) return;
    this.refocus(game);
  }

  // The focus, lost with what held it: the pyramid's stop, else the piles; a finished game's first choice.
  refocus(game) {
    const table = this.table;
    const target = this.table.spots.find((button) => button.tabIndex === 0);
    const choices = [...table.root.querySelectorAll("#ending button")];
    const next = game && game.finished ? choices.find(usable) : [target, this.pile].find(usable);
    if (next) next.focus();
  }

  arrow(event) {
    const card = event.target.closest(".card");
    if (!card || event.altKey || event.ctrlKey || event.metaKey) return;
    const stops = this.stops();
    const at = stops.indexOf(card);
    const from = place(Number(card.dataset.spot));
    const row = (direction) => {
      const rows = stops.map((button) => place(Number(button.dataset.spot)).row).filter((r) => (r - from.row) * direction > 0);
      if (!rows.length) return null;
      const goal = direction > 0 ? Math.min(...rows) : Math.max(...rows);
      const inRow = stops.filter((button) => place(Number(button.dataset.spot)).row === goal);
      return inRow.reduce((best, button) => (Math.abs(place(Number(button.dataset.spot)).x - from.x) < Math.abs(place(Number(best.dataset.spot)).x - from.x) ? button : best));
    };
    const moves = {
      ArrowLeft: () => stops[at - 1],
      ArrowRight: () => stops[at + 1],
      ArrowUp: () => row(-1),
      ArrowDown: () => row(1),
      Home: () => stops[0],
      End: () => stops[stops.length - 1],
    };
    if (!(event.key in moves)) return;
    event.preventDefault(); // (the page does not scroll instead)
    const next = at < 0 ? this.nearest(stops, card.dataset.spot) : moves[event.key]();
    if (next) {
      this.rove(next);
      next.focus();
    }
  }
}
