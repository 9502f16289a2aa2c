// What a screen reader is told, through the page's polite live region (#words, role="status"), which is
// also the line a sighted player reads under the cards: what a move did ("seven of clubs + six of hearts
// removed"), a refusal ("The sum must be 13"), and a game's result, once per game. The words come from the
// bot, in the player's language. The party race's rivals (issue #48) are meant to speak through here too,
// at a calm rate (a lead change, a finish; not every move): a method beside ``say`` that keeps the last
// rival news and lets it out only between the player's own words.
export class Announcer {
  constructor(region) {
    this.region = region;
    this.told = null; // the finished game whose result was said
    this.saidAt = 0; // when the player's own words were last said
    this.news = null; // the latest rival news not said yet (#48)
    this.waiting = null;
  }

  // A party's rival news: let out once the player's own words have had 2 s, the latest news only.
  rival(text) {
    this.news = text;
    if (this.waiting) return;
    const wait = Math.max(0, this.saidAt + 2000 - Date.now());
    this.waiting = setTimeout(() => {
      this.waiting = null;
      const news = this.news;
      this.news = null;
      if (news) this.region.textContent = news;
    }, wait);
  }

  say(text) {
    this.saidAt = Date.now();
    // The same words again (a second wrong sum) are a change of the region's text all the same, so they
    // are spoken again: a no-break space is added or taken off at the end.
    const region = this.region;
    region.textContent = text && region.textContent.trimEnd() === text && !region.textContent.endsWith("\u00a0") ? `${text}\u00a0` : text;
  }

  // A finished game's first line (its result) after the move's words, the first time the page sees it. The
  // position of the move that ended it may reach the page first (the broadcast to every page: no words) and
  // the move's own answer after it (its words, maybe none, said over the region): the result is then said
  // once more after that answer, so that it is heard after the last move whichever came first.
  // (``version``: the finished position's; ``answered``: this state answers the page's own press.)
  result(game, version, lines, answered) {
    if (!lines || !lines.length) return;
    const result = lines[0].replaceAll("**", "");
    if (this.told === game) {
      if (answered && !this.answered && this.toldAt === version) {
        this.answered = true;
        const words = this.region.textContent.trim();
        if (!words.includes(result)) this.region.textContent = words ? `${words} ${result}` : result;
      }
      return;
    }
    this.told = game;
    this.toldAt = version;
    this.answered = answered;
    const words = this.region.textContent.trim();
    this.region.textContent = words ? `${words} ${result}` : result;
  }
}
