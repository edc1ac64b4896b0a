/** The console's stylesheet: small, no external fonts or assets. */
export const consoleStyles = `
:root { --bg:#0f1419; --panel:#161c24; --line:#263040; --text:#e6edf3; --muted:#8b98a9; --accent:#5ab0ff; --ok:#3fb950; --warn:#d29922; --bad:#f85149; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; background:var(--bg); color:var(--text); }
header { display:flex; align-items:center; gap:24px; padding:12px 20px; background:var(--panel); border-bottom:1px solid var(--line); position:sticky; top:0; }
.brand { font-weight:700; font-size:16px; } .logo { color:var(--accent); } .muted { color:var(--muted); font-weight:400; }
nav { display:flex; gap:4px; flex:1; }
nav button { background:none; border:0; color:var(--muted); padding:8px 12px; border-radius:6px; cursor:pointer; font:inherit; }
nav button.active, nav button:hover { color:var(--text); background:#1f2833; }
.badge { background:var(--line); border-radius:10px; padding:0 7px; font-size:12px; } .badge.hot { background:var(--warn); color:#000; }
.chip { padding:4px 10px; border-radius:12px; background:var(--line); font-size:12px; } .chip.ok { background:#12391d; color:var(--ok); } .chip.bad { background:#3d1416; color:var(--bad); }
main { padding:20px; max-width:1200px; margin:0 auto; }
.view { display:none; } .view.active { display:block; }
h2 { font-size:15px; margin:0 0 12px; color:var(--muted); text-transform:uppercase; letter-spacing:.06em; }
table { width:100%; border-collapse:collapse; background:var(--panel); border:1px solid var(--line); border-radius:8px; overflow:hidden; }
th, td { text-align:left; padding:7px 10px; border-bottom:1px solid var(--line); vertical-align:top; }
th { white-space:nowrap; } td:last-child { overflow-wrap:anywhere; }
th { color:var(--muted); font-weight:500; font-size:12px; } tbody tr:hover { background:#1b2230; cursor:pointer; }
.status { font-weight:600; } .status.ok { color:var(--ok); } .status.error, .status.denied { color:var(--bad); } .status.awaiting-approval, .status.requested { color:var(--warn); } .status.cancelled { color:var(--muted); }
.empty { color:var(--muted); padding:16px 0; }
.closed { list-style:none; padding:0; margin:12px 0 0; color:var(--muted); font-size:13px; } .closed li { padding:3px 0; } .closed li.expired { color:var(--warn); }
/* Every line of a card wraps, wherever it is drawn: an http_request's headers, drawn as one JSON text under its title, put a header after an 8,000-character one 67,000 pixels to the right. */
.card { background:var(--panel); border:1px solid var(--line); border-left:3px solid var(--warn); border-radius:8px; padding:14px 16px; margin-bottom:12px; overflow-wrap:anywhere; }
.card h3 { margin:0 0 6px; font-size:15px; } .card h4 { margin:10px 0 2px; font-size:12px; color:var(--muted); } p.error { color:var(--bad); } pre.description { white-space:pre-wrap; overflow-wrap:anywhere; } .card .meta { color:var(--muted); font-size:12px; margin-bottom:8px; }
.preview { display:grid; grid-template-columns:90px 1fr; gap:4px 10px; margin:8px 0; } .preview dt { color:var(--muted); } .preview dd { margin:0; font-family:ui-monospace, monospace; word-break:break-all; }
pre { background:#0b0f14; border:1px solid var(--line); border-radius:6px; padding:10px; overflow:auto; max-height:360px; font:12px/1.5 ui-monospace, monospace; margin:6px 0; }
/* A card scrolls nothing: every line wraps and every box is as tall as its text, so no run of spaces or long line hides the end of what is approved, and the buttons come after all of it. */
.card pre { white-space:pre-wrap; overflow-wrap:anywhere; max-height:none; overflow:visible; }
.why { margin:6px 0 10px; padding-left:18px; } .why li.warn { color:var(--warn); font-weight:600; } .why code.rule { background:#0b0f14; border:1px solid var(--line); border-radius:4px; padding:0 4px; }
.files { margin:8px 0; } .file { margin:4px 0; } .file-head { display:flex; align-items:center; gap:8px; flex-wrap:wrap; } .file .label { color:var(--muted); font-size:12px; min-width:90px; }
.file code.path { font:600 15px/1.4 ui-monospace, monospace; word-break:break-all; } .requested { color:var(--muted); font-size:12px; margin-left:98px; } .requested code { font-family:ui-monospace, monospace; word-break:break-all; }
.flag { border:1px solid var(--line); border-radius:10px; padding:0 7px; font-size:11px; color:var(--muted); } .flag-protected { border-color:var(--warn); background:#3a2a08; color:var(--warn); font-weight:700; } .flag-outside, .flag-hardlink { border-color:var(--bad); color:var(--bad); } .flag-link { border-color:var(--accent); color:var(--accent); }
ol.argv { list-style:none; display:flex; flex-wrap:wrap; gap:4px; margin:0; padding:0; } ol.argv li code { display:inline-block; min-width:1.2em; white-space:pre-wrap; word-break:break-all; background:#0b0f14; border:1px solid var(--accent); border-radius:4px; padding:0 5px; }
.request strong { color:var(--warn); } .subtitle { font-family:ui-monospace, monospace; color:var(--warn); margin:6px 0; }
p.masked, p.cut { color:#000; background:var(--warn); border-radius:6px; padding:4px 10px; display:inline-block; font-weight:600; margin:8px 0; }
details.arguments summary, details.offered summary { color:var(--muted); cursor:pointer; font-size:12px; margin-top:6px; }
.diff-add { color:var(--ok); } .diff-del { color:var(--bad); } .diff-hunk { color:var(--accent); }
.actions { display:flex; gap:8px; flex-wrap:wrap; margin-top:10px; }
.actions button, .filters button { border:1px solid var(--line); background:#1f2833; color:var(--text); padding:6px 12px; border-radius:6px; cursor:pointer; font:inherit; }
.actions button.approve { border-color:#1f6f33; background:#12391d; } .actions button.reject { border-color:#7a2328; background:#3d1416; }
/* A card that just appeared or moved does not take a decision yet (settle-guard.ts): its buttons are drawn inert until it stays still. */
.actions button[aria-disabled="true"] { opacity:.4; cursor:not-allowed; }
.actions input, .filters input, .filters select { background:#0b0f14; border:1px solid var(--line); color:var(--text); padding:6px 8px; border-radius:6px; font:inherit; }
.filters { display:flex; gap:8px; margin-bottom:12px; }
.detail { margin-top:16px; background:var(--panel); border:1px solid var(--line); border-radius:8px; padding:14px 16px; }
.detail dl { display:grid; grid-template-columns:160px 1fr; gap:4px 12px; } .detail dt { color:var(--muted); } .detail dd { margin:0; word-break:break-all; }
.banner[hidden] { display:none; } .banner { display:flex; align-items:center; gap:12px; padding:8px 20px; background:var(--warn); color:#000; position:sticky; top:53px; z-index:1; }
.banner button { border:1px solid #000; background:#f0c04a; color:#000; padding:4px 10px; border-radius:6px; cursor:pointer; font:inherit; }
.pager { margin:8px 0; } .pager button { border:1px solid var(--line); background:#1f2833; color:var(--text); padding:6px 12px; border-radius:6px; cursor:pointer; font:inherit; }
td.target { font-family:ui-monospace, monospace; font-size:12px; overflow-wrap:anywhere; } td.run { font-family:ui-monospace, monospace; font-size:11px; color:var(--muted); }
ol.trace { margin:6px 0; padding-left:20px; } ol.trace li { margin:2px 0; } ol.trace li.winner { font-weight:600; } ol.trace code { background:#0b0f14; border:1px solid var(--line); border-radius:4px; padding:0 4px; }
table.rules td code { font-family:ui-monospace, monospace; } .floor dd code { font-family:ui-monospace, monospace; }
.attachments { display:flex; flex-wrap:wrap; gap:12px; align-items:flex-start; } figure.media { margin:0; max-width:260px; } figure.media figcaption, p.media-line { font:11px/1.4 ui-monospace, monospace; color:var(--muted); overflow-wrap:anywhere; } p.media-line { flex-basis:100%; margin:2px 0; } p.media-line a { color:var(--accent); }
img.media-thumb { display:block; max-width:240px; max-height:180px; min-width:16px; min-height:16px; background:#0b0f14; border:1px solid var(--line); border-radius:4px; cursor:zoom-in; image-rendering:pixelated; }
dialog#media-full { max-width:95vw; max-height:95vh; overflow:auto; padding:10px; background:var(--panel); color:var(--text); border:1px solid var(--line); border-radius:8px; cursor:zoom-out; } dialog#media-full img { display:block; max-width:none; } dialog#media-full p { margin:0 0 8px; font:11px ui-monospace, monospace; color:var(--muted); } dialog#media-full::backdrop { background:rgba(0,0,0,.7); }
.diff-side { display:grid; grid-template-columns:1fr; gap:4px; }
`;
