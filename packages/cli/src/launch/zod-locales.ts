import { createRequire } from "node:module";

/**
 * Stands in, in the `arbor` process, for zod's `v4/locales/index.js`: the `z.locales` namespace, whose
 * ~60 modules (one per language) zod's entry imports eagerly although only English is ever used
 * unless a program calls `z.config(z.locales.xx())`. Each export here has the name of zod's and loads
 * that locale's module when called, so the namespace behaves as before and costs nothing until then.
 * `./zod-locales-hook.ts` puts it in place, with `?of=` the URL of the zod index it stands for, so it
 * loads the locales of that same zod copy.
 */

type Locale = (...args: unknown[]) => unknown;

const of = new URL(import.meta.url).searchParams.get("of");
if (of === null) throw new Error("zod-locales.js is loaded by zod-locales-hook.js with ?of=<zod's locales index URL>");
const load = createRequire(of);

/** zod's locale in `./<file>.js`, loaded (by require of the ES module, synchronously) at the first call. */
function locale(file: string): Locale {
  return (...args) => (load(`./${file}.js`) as { default: Locale }).default(...args);
}

export const ar = locale("ar");
export const az = locale("az");
export const be = locale("be");
export const bg = locale("bg");
export const bn = locale("bn");
export const ca = locale("ca");
export const ckb = locale("ckb");
export const cs = locale("cs");
export const da = locale("da");
export const de = locale("de");
export const el = locale("el");
export const en = locale("en");
export const eo = locale("eo");
export const es = locale("es");
export const fa = locale("fa");
export const fi = locale("fi");
export const fr = locale("fr");
export const frCA = locale("fr-CA");
export const gu = locale("gu");
export const he = locale("he");
export const hi = locale("hi");
export const hr = locale("hr");
export const hu = locale("hu");
export const hy = locale("hy");
export const id = locale("id");
export const is = locale("is");
export const it = locale("it");
export const ja = locale("ja");
export const ka = locale("ka");
export const kh = locale("kh");
export const km = locale("km");
export const kn = locale("kn");
export const ko = locale("ko");
export const lt = locale("lt");
export const mk = locale("mk");
export const ms = locale("ms");
export const ne = locale("ne");
export const nl = locale("nl");
export const nn = locale("nn");
export const no = locale("no");
export const ota = locale("ota");
export const ps = locale("ps");
export const pl = locale("pl");
export const pt = locale("pt");
export const ptBR = locale("pt-BR");
export const ro = locale("ro");
export const ru = locale("ru");
export const sk = locale("sk");
export const sl = locale("sl");
export const sv = locale("sv");
export const ta = locale("ta");
export const tg = locale("tg");
export const th = locale("th");
export const tk = locale("tk");
export const tr = locale("tr");
export const ua = locale("ua");
export const uk = locale("uk");
export const ur = locale("ur");
export const uz = locale("uz");
export const vi = locale("vi");
export const zhCN = locale("zh-CN");
export const zhTW = locale("zh-TW");
export const yo = locale("yo");
