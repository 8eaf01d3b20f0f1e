# The record contract (share/wp-records.schema.json, as $schema) checked
# on each record read: prints one line per departure from it.
def prim($v; $a):
  if $a == "string" then ($v | type) == "string"
  elif $a == "integer" then ($v | type) == "number" and ($v | floor) == $v
  elif $a == "boolean" then ($v | type) == "boolean"
  elif $a == "null" then $v == null
  elif $a == "hex" then ($v | type) == "string" and ($v | test("^0x[0-9a-f]{1,16}$"))
  elif $a == "shex" then ($v | type) == "string" and ($v | test("^-?0x[0-9a-f]{1,16}$"))
  else false end;

def ok($v; $spec; $path):
  if ($spec | type) == "string" and ($spec | startswith("$")) then
    ok($v; {object: $schema.objects[$spec]}; $path)
  elif ($spec | type) == "string" then
    if any(($spec | split("|"))[]; prim($v; .)) then empty
    else "\($path): \($v | tojson | .[0:60]) is not \($spec)" end
  elif ($spec | type) == "object" and ($spec | has("enum")) then
    if any($spec.enum[]; . == $v) then empty
    else "\($path): \($v | tojson | .[0:60]) is not one of its words" end
  elif $spec.oneof then
    if any($spec.oneof[]; . as $o | [ok($v; $o; $path)] | length == 0) then empty
    else "\($path): \($v | tojson | .[0:60]) is none of its types" end
  elif $spec.array then
    if ($v | type) != "array" then "\($path): not an array"
    else $v | to_entries[] | ok(.value; $spec.array; "\($path)[\(.key)]") end
  elif $spec.map then
    if ($v | type) != "object" then "\($path): not an object"
    else $v | to_entries[] | ok(.value; $spec.map; "\($path).\(.key)") end
  elif $spec.object then
    ($spec.object.required // {}) as $r | ($spec.object.optional // {}) as $p
    | if ($v | type) != "object" then "\($path): not an object"
      else
        ($r | keys[] | select(. as $k | $v | has($k) | not) | "\($path).\(.): missing"),
        ($v | keys[] | select(. as $k | ($r | has($k)) or ($p | has($k)) | not)
          | "\($path).\(.): not in the contract"),
        ($v | to_entries[] | select(.key as $k | ($r | has($k)) or ($p | has($k)))
          | ok(.value; ($r[.key] // $p[.key]); "\($path).\(.key)"))
      end
  else "\($path): the schema's spec is not understood" end;

.type as $t
| if ($schema.types | has($t)) then ok(.; {object: $schema.types[$t]}; $t)
  else "type \($t): not in the contract" end
