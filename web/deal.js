// The deal form: the options of /pyramide new (no thread: the Activity plays its own channel's game).
// Shown when the channel has no game, and by "Deal a new game…" over a running or finished one.
export class DealForm {
  constructor(form) {
    this.form = form;
    this.texts = {};
    this.onDeal = () => {};
    this.toggle = document.querySelector('[data-action="deal-form"]');
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.onDeal(this.options());
    });
  }

  // The options chosen (a deal's, or a party race's: party.js).
  options() {
    const data = new FormData(this.form);
    const options = {};
    for (const name of ["strict_win", "draw_with_waste", "pair_with_cover", "winnable"]) {
      options[name] = data.get(name) === "on";
    }
    if (data.get("pass_limit") !== "") options.pass_limit = Number(data.get("pass_limit"));
    if (data.get("difficulty") !== "") options.difficulty = String(data.get("difficulty"));
    const code = String(data.get("code") || "").trim();
    if (code) options.code = code;
    return options;
  }

  show(visible) {
    this.form.hidden = !visible;
    this.toggle.setAttribute("aria-expanded", String(visible));
  }
}
