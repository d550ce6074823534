/**
 * The public invoice page's style: one column that fits a 390 px phone without sideways
 * scrolling (tables become stacked rows there, long words wrap anywhere), a wider sheet on a
 * desktop. Inline in the page: the CSP allows no other source.
 *
 * Text a person wrote (notes, payment instructions, addresses, the footer) is `unicode-bidi:
 * plaintext`: each of its lines takes the direction of its own first letter, as in the PDF, so a
 * Hebrew paragraph followed by an English one keeps the English full stop at the end. Notes and
 * instructions are set where each paragraph starts reading (right for Hebrew); an address stays
 * a block, left for the client and right for the seller, as on the PDF.
 */
export const PAGE_CSS = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f3f4f6;margin:0}
main{max-width:880px;margin:0 auto;padding:24px 16px 48px}
.sheet{background:#fff;border-radius:10px;box-shadow:0 1px 3px rgba(0,0,0,.08);padding:28px}
p,h1,h2,dd,dt,li,address{overflow-wrap:anywhere}
td,th{overflow-wrap:break-word}
td.text{overflow-wrap:anywhere;min-width:8em}
header.seller{display:flex;justify-content:space-between;gap:16px;flex-wrap:wrap;align-items:flex-start}
header.seller img{max-width:200px;max-height:72px;height:auto}
.seller .who{text-align:right;color:#57606a;font-size:.9em;margin-left:auto}
.seller .who strong{color:#1f2328;font-size:1.1em;display:block}
address{font-style:normal;white-space:pre-line;unicode-bidi:plaintext;text-align:left}
.seller address{text-align:inherit}
.written{white-space:pre-line;unicode-bidi:plaintext}
h1{font-size:1.6em;margin:24px 0 4px;display:flex;flex-wrap:wrap;gap:8px 12px;align-items:center}
h2{font-size:1.05em;margin:28px 0 8px}
.badge{display:inline-block;font-size:.55em;font-weight:700;letter-spacing:.04em;padding:3px 10px;border-radius:999px;text-transform:uppercase;background:#e5e7eb;color:#374151}
.badge.paid{background:#dcfce7;color:#166534}.badge.overdue{background:#ffedd5;color:#9a3412}.badge.void{background:#fee2e2;color:#991b1b}
.badge.partially_paid{background:#fef3c7;color:#92400e}.badge.credit_note{background:#dbeafe;color:#1e40af}
.notice{border-radius:8px;padding:12px 14px;margin:16px 0;background:#eff6ff;color:#1e3a8a}
.notice.warn{background:#fff7ed;color:#9a3412}.notice.ok{background:#f0fdf4;color:#166534}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:16px 24px;margin-top:16px}
.due{background:#f8fafc;border:1px solid #e5e7eb;border-radius:10px;padding:16px}
.due .amount{font-size:1.9em;font-weight:700;line-height:1.2}
.due dl{display:grid;grid-template-columns:auto 1fr;gap:2px 12px;margin:10px 0 0;font-size:.92em}
.due dt{color:#57606a}.due dd{margin:0;text-align:right}
.actions{display:flex;flex-wrap:wrap;gap:10px;margin-top:14px}
.button{display:inline-block;border:0;border-radius:8px;padding:11px 18px;font:inherit;font-weight:600;text-decoration:none;cursor:pointer;background:#e5e7eb;color:#1f2328}
.button.primary{background:#1a4fa3;color:#fff}
form{margin:0}
.label{color:#57606a;font-size:.8em;font-weight:600;text-transform:uppercase;letter-spacing:.05em;margin:0 0 4px}
table{border-collapse:collapse;width:100%}
th,td{padding:8px 6px;border-bottom:1px solid #e5e7eb;text-align:left;vertical-align:top}
th{color:#57606a;font-size:.85em;font-weight:600}
.num{text-align:right;white-space:nowrap}.nowrap{white-space:nowrap}
.totals{margin:12px 0 0 auto;width:auto;min-width:min(100%,340px)}
.totals td{border:0;padding:3px 6px}.totals .strong td{font-weight:700;font-size:1.08em;border-top:1px solid #d1d5db}
.muted{color:#57606a}
footer{color:#6b7280;font-size:.85em;text-align:center;margin-top:24px;white-space:pre-line;unicode-bidi:plaintext}
@media (max-width:640px){
  main{padding:12px 10px 32px}.sheet{padding:18px 14px}
  .grid{grid-template-columns:1fr}.grid .due{order:-1}
  .seller .who{text-align:left;margin-left:0}
  table.lines thead{display:none}
  table.lines tr{display:block;padding:8px 0;border-bottom:1px solid #e5e7eb}
  table.lines td{display:flex;justify-content:space-between;gap:12px;border:0;padding:2px 0;text-align:right;white-space:normal}
  table.lines td::before{content:attr(data-label);color:#57606a;font-size:.85em;text-align:left;flex:none}
  table.lines td.text{display:block;text-align:left;min-width:0}
  table.lines td.text::before{display:block}
}`;
