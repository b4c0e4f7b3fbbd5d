// Translations for the page's scripts: t(text, values) reads window.I18N (English → chosen
// language, injected by the page) and falls back to the English text. tSentence() translates a sentence
// the hub built in English, by its pattern; it mirrors companion/i18n/__init__.py (translate_sentence).
"use strict";
const I18N_MESSAGES = window.I18N || {};
const I18N_NESTED = ["who", "reason", "rule", "phase", "label", "note", "names", "preview"];
const I18N_GREEDY = ["reason"];
const I18N_WORDS = ["player", "node", "index", "number", "name", "winner", "table", "sand", "minutes", "points",
                    "score", "low", "high", "connected", "needed", "count", "kind"];
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

function i18nPattern(key) {
  const names = [];
  let source = "";
  let last = 0;
  for (const m of key.matchAll(I18N_PLACEHOLDER)) {
    source += key.slice(last, m.index).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const name = m[1];
    if (names.includes(name)) source += "\\k<" + name + ">";
    else {
      const body = I18N_WORDS.includes(name) ? "\\S+" : I18N_GREEDY.includes(name) ? "[\\s\\S]+" : "[\\s\\S]+?";
      source += "(?<" + name + ">" + body + ")";
      names.push(name);
    }
    last = m.index + m[0].length;
  }
  source += key.slice(last).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp("^" + source + "$");
}

const I18N_PATTERNS = Object.keys(I18N_MESSAGES)
  .filter((key) => key !== I18N_LIST && /\{[A-Za-z_][A-Za-z0-9_]*\}/.test(key))
  .map((key) => ({ key, literal: key.replace(I18N_PLACEHOLDER, "").length, regex: i18nPattern(key) }))
  .sort((a, b) => b.literal - a.literal);

function tSentence(text, depth) {
  depth = depth || 0;
  if (!text) return text || "";
  if (Object.prototype.hasOwnProperty.call(I18N_MESSAGES, text) && I18N_MESSAGES[text]) return I18N_MESSAGES[text];
  if (depth >= 4) return text;
  for (const p of I18N_PATTERNS) {
    const m = p.regex.exec(text);
    if (!m) continue;
    const values = {};
    for (const [name, value] of Object.entries(m.groups || {})) values[name] = i18nNested(name, value, depth + 1);
    return i18nFill(I18N_MESSAGES[p.key], values);
  }
  return text;
}

function i18nNested(name, value, depth) {
  if (!I18N_NESTED.includes(name)) return value;
  if (name === "names") {
    const m = i18nPattern(I18N_LIST).exec(value);
    return m ? i18nFill(I18N_MESSAGES[I18N_LIST] || I18N_LIST, m.groups) : value;
  }
  return tSentence(value, depth);
}
