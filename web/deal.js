// The deal form, shown when the channel has no game: the options of /pyramide new.
export class DealForm {
  constructor(form, deal) {
    this.form = form;
    this.texts = {};
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const options = {};
      for (const name of ["strict_win", "draw_with_waste", "pair_with_cover", "winnable"]) {
        options[name] = data.get(name) === "on";
      }
      if (data.get("pass_limit") !== "") options.pass_limit = Number(data.get("pass_limit"));
      const code = String(data.get("code") || "").trim();
      if (code) options.code = code;
      deal(options);
    });
  }

  show(visible) {
    this.form.hidden = !visible;
  }
}
