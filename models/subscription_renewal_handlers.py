"""Handlers for models/subscription-renewal.bpmn: one function per service task topic.

The process is started by its timer start event ("Every day", R/P1D), so it is deployed and
left to a worker rather than run:
  bpmn deploy models/subscription-renewal.bpmn
  bpmn worker --handlers models/subscription_renewal_handlers.py

Simulating three and a half days at once on a virtual clock (expect 3 instances started, one a
day, each ending at EndEvent_Renewed after its 12-hour grace period):
  bpmn worker --handlers models/subscription_renewal_handlers.py --clock virtual --once --horizon P3DT12H

A real handler would query the billing system; these return a fixed demo book of subscriptions.
Each handler passes ctx.idempotency_key on, so a job re-run after a crash does its work once.
"""

# subscription id -> (owner, plan): the demo's subscriptions due for renewal
DUE = {
    "SUB-1001": ("ada@example.com", "annual"),
    "SUB-1002": ("grace@example.com", "monthly"),
}


def check_subscriptions(ctx):
    """Find the subscriptions whose renewal date falls within the next week."""
    return {"dueSubscriptions": sorted(DUE), "renewalsDue": len(DUE)}


def send_reminders(ctx):
    """Tell each owner the renewal is coming (once per run, whatever the retries)."""
    sent = [f"{DUE[s][0]}:{ctx.idempotency_key}" for s in ctx.variables["dueSubscriptions"]]
    return {"remindersSent": len(sent)}


def renew_subscriptions(ctx):
    """Charge and extend each subscription; the key makes a retried charge a no-op."""
    renewed = ctx.variables["dueSubscriptions"]
    return {"renewed": renewed, "renewalReference": f"REN-{ctx.idempotency_key[-6:].upper()}"}
