export function MemberCard({ member }: { member: { name: string; email: string; avatar?: string; role: string } }) {
  return (
    <div className="card">
      {member.avatar ? <img src={member.avatar} alt="" className="avatar" /> : <span className="avatar-placeholder" />}
      <div className="card-body">
        <h3 className="card-title">{member.name}</h3> {/* VULN: duplicate */}
        <p className="card-subtitle">{member.email}</p>
        <span className={`badge badge-${member.role}`}>{member.role}</span>
      </div>
    </div>
  );
}
