// Translations for the page's scripts: t(text, values) reads window.I18N (English → chosen
// language, injected by the page) and falls back to the English text; tr(value) shows a hub text
// (a message id with arguments) as companion/i18n/__init__.py's render() does.
"use strict";
// Where this table's pages are: "" for a table of its own, "/t/<table>" in a club (companion/club.py).
const HUB = window.HUB_ROOT || "";
const I18N_MESSAGES = window.I18N || {};
const I18N_LIST = "{names} and {name}";
const I18N_PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function i18nFill(text, values) {
  return text.replace(I18N_PLACEHOLDER, (whole, name) =>
    values && Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole);
}

function t(text, values) {
  const translated = Object.prototype.hasOwnProperty.call(I18N_MESSAGES, text) ? I18N_MESSAGES[text] : text;
  return i18nFill(translated || text, values);
}

// tr(value): a text from the hub in the page's language. The hub sends words for players as message ids
// with arguments (companion/rules/text.py): {"msg": id, "args": {...}, "plural": form}. A plain string is
// shown as it is (a player's name, a number). Arguments that are texts are translated in turn; a list is
// joined with the language's "and"; "count" picks the plural form (Spanish and German: one / other).
function i18nPlural(count) { return count === 1 ? "one" : "other"; }

function tr(value, depth) {
  depth = depth || 0;
  if (value === null || value === undefined) return "";
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) return i18nJoin(value.map((v) => tr(v, depth + 1)));
  if (typeof value.msg !== "string") return "";
  if (depth > 8) return value.msg;
  const args = value.args || {};
  const count = typeof args.count === "number" ? args.count : null;
  const category = count === null ? "one" : i18nPlural(count);
  const found = Object.prototype.hasOwnProperty.call(I18N_MESSAGES, value.msg) ? I18N_MESSAGES[value.msg] : null;
  let template;
  if (found && typeof found === "object") template = found[category] || found.other || value.msg;
  else if (found && (category === "one" || !value.plural)) template = found;
  else template = value.plural && category !== "one" ? value.plural : value.msg;
  const filled = {};
  for (const [name, arg] of Object.entries(args)) {
    if (typeof arg === "number") filled[name] = Number.isInteger(arg) ? String(arg) : String(arg);
    else filled[name] = tr(arg, depth + 1);
  }
  return i18nFill(template, filled);
}

function i18nJoin(items) {
  if (items.length < 2) return items.join("");
  const pattern = typeof I18N_MESSAGES[I18N_LIST] === "string" ? I18N_MESSAGES[I18N_LIST] : I18N_LIST;
  return pattern.replace("{names}", items.slice(0, -1).join(", ")).replace("{name}", items[items.length - 1]);
}
