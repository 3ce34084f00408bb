"""What leaves a result for the analyst's own tools: CSV and Parquet downloads, the SQL copied,
the SQL inserted as a new cell — as HTML that does its work in the browser alone.

Why in the browser: in JupyterLab a widget Button's click reaches the kernel as a comm message,
and from there nothing can reach the clipboard, start a download or add a cell (IPython's
`set_next_input` is carried by the reply to an execute request, which a click is not; JupyterLab
does not run `IPython.display.Javascript` for a widget). A link with `download` and a `data:` URL
downloads with no script at all; the two buttons carry their text in a `data-` attribute and an
`onclick` handler (the widget's HTML is not sanitized, a notebook's trusted output neither):
Copy uses the clipboard API (a page served from localhost or https), Insert selects the button's
cell and presses JupyterLab's own keys (B: a new cell below, Enter: edit it), then types the code
into the new cell's editor, so the cell is the front end's own, saved with the notebook.
"""

from __future__ import annotations

import base64
import io
from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa

#: Above this many bytes a table is not embedded as a download (the notebook would carry it).
MAX_EMBEDDED_BYTES = 8 * 1024 * 1024
BUTTON = ("display:inline-block;margin:2px 4px 2px 0;padding:2px 10px;border:1px solid #bbb;"
          "border-radius:2px;background:#eee;color:#000;font-size:13px;text-decoration:none;"
          "cursor:pointer;line-height:22px")

_COPY_JS = """
var b=this, t=b.dataset.text, done=function(){b.textContent='Copied';
setTimeout(function(){b.textContent=b.dataset.label;},1500);};
if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(t).then(done);return;}
var a=document.createElement('textarea');a.value=t;document.body.appendChild(a);a.select();
document.execCommand('copy');a.remove();done();
"""

_INSERT_JS = """
var b=this, code=b.dataset.text, cell=b.closest('.jp-Cell');
if(!cell){b.textContent='Not in JupyterLab: use Copy SQL';return;}
var key=function(el,k,c,n){['keydown','keyup'].forEach(function(t){el.dispatchEvent(new KeyboardEvent(t,
{key:k,code:c,keyCode:n,which:n,bubbles:true,cancelable:true}));});};
var prompt=cell.querySelector('.jp-InputPrompt')||cell;
['mousedown','mouseup','click'].forEach(function(t){prompt.dispatchEvent(new MouseEvent(t,
{bubbles:true,cancelable:true,view:window}));});
setTimeout(function(){
 key(document.activeElement||cell,'Escape','Escape',27);
 setTimeout(function(){
  var nb=cell.closest('.jp-Notebook');
  key(document.activeElement||cell,'b','KeyB',66);
  setTimeout(function(){
   var added=nb.querySelector('.jp-Cell.jp-mod-active');
   if(!added||added===cell){b.textContent='Could not insert: use Copy SQL';return;}
   key(document.activeElement,'Enter','Enter',13);
   setTimeout(function(){
    var ed=added.querySelector('.cm-content');
    if(ed){ed.focus();document.execCommand('insertText',false,code);}
    b.textContent='Inserted below';setTimeout(function(){b.textContent=b.dataset.label;},1500);
   },150);
  },150);
 },100);
},100);
"""


def csv_bytes(table: pa.Table) -> bytes:
    """The table as CSV (a header row, then the rows), UTF-8."""
    import pyarrow.csv as pacsv

    sink = io.BytesIO()
    pacsv.write_csv(table, sink)
    return sink.getvalue()


def parquet_bytes(table: pa.Table) -> bytes:
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def download_link(data: bytes, filename: str, mime: str, label: str) -> str:
    """An `<a download>` link carrying `data`; a note instead when it is too large to embed.

    >>> download_link(b"n\\n1\\n", "r.csv", "text/csv", "Download CSV")[:60]
    '<a class="nl2sql-download" download="r.csv" href="data:text/'
    """
    if len(data) > MAX_EMBEDDED_BYTES:
        return (f'<span class="nl2sql-download-note">{escape(label)}: the table is too large to '
                f"embed ({len(data):,} bytes); use result.to_pandas() to save it</span>")
    encoded = base64.b64encode(data).decode("ascii")
    return (f'<a class="nl2sql-download" download="{escape(filename)}" '
            f'href="data:{mime};base64,{encoded}" style="{BUTTON}">{escape(label)}</a>')


def copy_button(text: str, label: str = "Copy SQL") -> str:
    return _script_button("nl2sql-copy", text, label, _COPY_JS)


def insert_button(code: str, label: str = "Insert as cell") -> str:
    return _script_button("nl2sql-insert", code, label, _INSERT_JS)


def _script_button(css_class: str, text: str, label: str, script: str) -> str:
    handler = " ".join(line.strip() for line in script.strip().splitlines())
    return (f'<button class="{css_class}" type="button" data-text="{escape(text)}" '
            f'data-label="{escape(label)}" style="{BUTTON}" onclick="{escape(handler)}">'
            f"{escape(label)}</button>")


def file_stem(question: str) -> str:
    """A file name from the question: its first words, lower case.

    >>> file_stem("How many orders were placed in 2024?")
    'how-many-orders-were-placed-in-2024'
    """
    import re

    words = re.findall(r"[a-z0-9]+", question.lower())[:10]
    return "-".join(words)[:80].strip("-") or "nl2sql-result"
