"""Handlers for models/claim-handling.bpmn: one function per service task topic.

Run it (expect EndEvent_ClaimPaid: the first estimate 4800 is sent back, the second, 4320, is
accepted; payout = 4320 - 500 deductible = 3820, revision=2):
  bpmn run models/claim-handling.bpmn --handlers models/claim_handling_handlers.py --answers models/claim-handling.answers.json --var claimedAmount=4800 --var policyLimit=10000 --var deductible=500

A claim below the deductible is declined (EndEvent_ClaimDeclined: estimate 360, payout 0):
  bpmn run models/claim-handling.bpmn --handlers models/claim_handling_handlers.py --answers models/claim-handling.answers.json --var claimedAmount=400 --var policyLimit=10000 --var deductible=500

Variables: `claimedAmount`, `policyLimit` and `deductible` come in with --var; the scripts in
"Assess claim" set `revision`, `estimate` and `payout`; "Review estimate" sets `accepted` (one
answer per visit, from the answers file).
"""


def pay_out(ctx):
    """Pretend to transfer the payout; a real handler would pass ctx.idempotency_key to the bank."""
    payout = ctx.variables["payout"]
    return {"paymentReference": f"CLM-{ctx.idempotency_key[-6:].upper()}", "paidAmount": payout}
