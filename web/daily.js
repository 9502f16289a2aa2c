// Today's daily in the player's seat: the button that opens it (or takes the page back to it), the way back
// to the channel's table, the month's picture, and how far the others in the instance are (cards removed,
// never their cards). The bot decides everything; the page only asks and shows.
export class Daily {
  constructor(root, table, send) {
    this.root = root;
    this.table = table;
    this.nav = root.querySelector("#daily-tools");
    this.open = this.nav.querySelector('[data-action="daily"]');
    this.back = this.nav.querySelector('[data-action="table"]');
    this.month = this.nav.querySelector('[data-action="month"]');
    this.seats = root.querySelector("#seats");
    this.list = root.querySelector("#seat-list");
    this.figure = root.querySelector("#month");
    this.picture = root.querySelector("#month-picture");
    this.seated = false;
    this.nav.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-action]");
      if (!button) return;
      if (button === this.month && !this.figure.hidden) {
        this.shut();
      } else {
        send({ t: button.dataset.action });
      }
    });
  }

  shut() {
    this.figure.hidden = true;
    this.month.setAttribute("aria-expanded", "false");
  }

  // Each state: whether this page sits in its seat (the table's own choices are not offered there), and
  // who plays the daily in this instance, how far.
  shown(state) {
    const seated = Boolean(state.you && state.you.seat);
    const moved = seated !== this.seated;
    this.seated = seated;
    this.root.dataset.seat = seated ? state.you.seat : "";
    this.open.hidden = seated;
    this.back.hidden = !seated;
    // (the table draws "Same deal again" by its game; a deal is never made in a seat)
    this.root.querySelector('[data-action="deal-form"]').hidden = seated;
    this.root.querySelector('[data-action="new"]').hidden = seated;
    if (seated) this.root.querySelector('[data-action="again"]').hidden = true;
    if (seated) this.root.querySelector("#deal").hidden = true;
    const texts = this.table.texts;
    const seats = state.seats || [];
    this.list.replaceChildren(
      ...seats.map((seat) => {
        const item = document.createElement("li");
        item.dataset.seat = seat.kind;
        item.dataset.user = seat.id;
        item.dataset.removed = String(seat.removed);
        const words = texts[seat.finished ? "activity.seat_done" : "activity.seat_daily"] || "{player}: {removed}/28";
        item.textContent = words.replace("{player}", seat.name).replace("{removed}", String(seat.removed));
        return item;
      }),
    );
    this.seats.hidden = seats.length === 0;
    // The button pressed is hidden now: the focus goes to the one that takes the page back.
    if (moved && (document.activeElement === document.body || document.activeElement.closest("[hidden]"))) {
      (seated ? this.back : this.open).focus();
    }
  }

  // The month's picture, as /pyramide daily month draws it (its words are its alt text).
  pictured(message) {
    this.picture.src = message.png;
    this.picture.alt = message.alt;
    this.figure.hidden = false;
    this.month.setAttribute("aria-expanded", "true");
    this.table.say(this.table.texts["activity.month_title"] || "");
  }
}
