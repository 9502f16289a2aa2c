// The Activity's page: signs in through the Embedded App SDK as Discord's examples do (authorize with the
// identify scope, the code exchanged by the bot, authenticate), then plays over one WebSocket.
import { DiscordSDK } from "./build/sdk.js";
import { Link } from "./link.js";
import { Table } from "./table.js";
import { DealForm } from "./deal.js";
import { Playback } from "./playback.js";
import { Choices } from "./choices.js";
import { Keys } from "./keys.js";
import { Daily } from "./daily.js";
import { Party } from "./party.js";

const notice = document.getElementById("notice");

function tell(text) {
  notice.textContent = text;
  notice.hidden = !text;
}

async function signIn(sdk, clientId) {
  await sdk.ready();
  const { code } = await sdk.commands.authorize({
    client_id: clientId,
    response_type: "code",
    state: "",
    prompt: "none",
    scope: ["identify"],
  });
  const answer = await fetch("/api/token", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ code, instance_id: sdk.instanceId, locale: navigator.language }),
  });
  const body = await answer.json();
  if (body.refused) {
    throw new Error(body.message || body.refused);
  }
  await sdk.commands.authenticate({ access_token: body.access_token });
  const { locale } = await sdk.commands.userSettingsGetLocale();
  return { session: body.session, locale, token: body.access_token };
}

async function main() {
  const config = await (await fetch("/api/config")).json();
  const sdk = new DiscordSDK(config.client_id);
  let signed;
  try {
    signed = await signIn(sdk, config.client_id);
  } catch (error) {
    tell(error.message);
    document.getElementById("table").dataset.state = "refused";
    return;
  }
  document.documentElement.lang = signed.locale.split("-")[0];
  const table = new Table(document.getElementById("table"));
  const link = new Link({ session: signed.session, instance: sdk.instanceId, locale: signed.locale });
  const form = new DealForm(document.getElementById("deal"));
  const keys = new Keys(table);
  const choices = new Choices(table.root, table, form, new Playback(table), (message) => link.send(message), keys);
  table.onAsk = (message) => link.send(message);
  const daily = new Daily(table.root, table, (message) => link.send(message));
  link.onMonth = (message) => daily.pictured(message);
  const signedIn = { token: signed.token, clientId: config.client_id };
  const party = new Party(table.root, table, form, (message) => link.send(message), sdk, signedIn); // (#48)
  link.onPodium = (message) => party.pictured(message);
  const choose = table.onAction;
  table.onAction = (action, button) => party.chosen(action) || choose(action, button);
  link.onTexts = (texts) => {
    table.texts = texts;
    form.texts = texts;
    for (const element of document.querySelectorAll("[data-text]")) {
      element.textContent = texts[element.dataset.text] ?? element.textContent;
    }
    for (const element of document.querySelectorAll("[data-label]")) {
      element.setAttribute("aria-label", texts[element.dataset.label] ?? "");
    }
  };
  link.onState = (state) => {
    tell("");
    choices.shown(state);
    daily.shown(state);
    party.shown(state);
  };
  link.onLost = () => tell(table.texts["activity.reconnecting"] || "…");
  link.onRefused = (reason) => tell(reason);
  link.open();
}

main();
