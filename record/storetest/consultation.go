package storetest

import "git-reason/record"

// DriverConsultation is advisor's outcome on plan as the consult driver
// records it: with a stance, completed with a view of its own and model
// (the model that answered, as AppendConsultation takes it); without one,
// a timeout, with no model.
func DriverConsultation(plan, advisor, stance string, model record.Model) (*record.Consultation, *record.Model) {
	c := &record.Consultation{Plan: plan, Advisor: advisor, Transport: "api", DurationMS: 12}
	if stance == "" {
		c.Status, c.Failure = "failed", &record.Failure{Kind: "timeout", Detail: "no answer in time"}
		return c, nil
	}
	c.Status = "completed"
	c.Conclusion = &record.Answer{Stance: stance, Summary: "the view of " + advisor, Confidence: 0.7}
	return c, &model
}
